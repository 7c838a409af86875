import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { didYouMean } from '../src/policy/did-you-mean.js';
import { parsePolicy } from '../src/policy/parse-policy.js';
import { covgateIn } from './in-process.js';
import { service } from './in-process-service.js';

const refused = (text: string) => {
  try {
    parsePolicy(text, 'covgate.yml');
  } catch (error) {
    return {
      message: (error as Error).message,
      exitCode: (error as { exitCode: number }).exitCode,
    };
  }
  throw new Error('accepted');
};

describe('parsePolicy', () => {
  it('reads every key of a full policy', () => {
    const text = `project:
  warn: 0.5
  fail: 2
  target: 70
  informational: false
patch:
  target: 85
  informational: true
ignore:
  - "**/generated/**"
  - "*.pb.go"
components:
  api: [services/api/**]
  web:
    - apps/web/**
comment:
  sections: [verdict, patch]
base_branch: develop
parts:
  expect: [unit, integration]
  carryforward: [integration]
`;
    expect(parsePolicy(text, 'covgate.yml')).toEqual({
      project: { warn: 0.5, fail: 2, target: 70, informational: false },
      patch: { target: 85, informational: true },
      ignore: ['**/generated/**', '*.pb.go'],
      components: { api: ['services/api/**'], web: ['apps/web/**'] },
      comment: { sections: ['verdict', 'patch'] },
      base_branch: 'develop',
      parts: { expect: ['unit', 'integration'], carryforward: ['integration'] },
    });
  });

  it('refuses parts that name no part, or carry forward something else than parts', () => {
    expect(refused('parts:\n  expect: 0\n')).toEqual({
      message:
        'covgate.yml:2:11: parts.expect: must be a count from 1 to 1000, or a list of part names (a letter or digit, then letters, digits, ".", "_" or "-"), each once',
      exitCode: 2,
    });
    expect(refused('parts:\n  carryforward: false\n').message).toBe(
      'covgate.yml:2:17: parts.carryforward: must be true, or a list of part names (a letter or digit, then letters, digits, ".", "_" or "-"), each once',
    );
    expect(refused('parts:\n  carryforward: [a b]\n').message).toBe(
      'covgate.yml:2:17: parts.carryforward: must be true, or a list of part names (a letter or digit, then letters, digits, ".", "_" or "-"), each once',
    );
    expect(refused('parts:\n  expected: 4\n').message).toBe(
      'covgate.yml:2:3: parts: unknown key "expected" (did you mean "expect"?)',
    );
  });

  it('takes an empty file as an empty policy', () => {
    expect(parsePolicy('', 'covgate.yml')).toEqual({});
    expect(parsePolicy('# nothing yet\n', 'covgate.yml')).toEqual({});
  });

  it('refuses an unknown key with the closest known one, at its line and column', () => {
    expect(refused('projct:\n  target: 80\n')).toEqual({
      message: 'covgate.yml:1:1: unknown key "projct" (did you mean "project"?)',
      exitCode: 2,
    });
    expect(refused('project:\n  warn: 1\n  targt: 80\n').message).toBe(
      'covgate.yml:3:3: project: unknown key "targt" (did you mean "target"?)',
    );
    expect(refused('base-branch: main\n').message).toBe(
      'covgate.yml:1:1: unknown key "base-branch" (did you mean "base_branch"?)',
    );
    expect(refused('coverage:\n  status: {}\n').message).toBe(
      'covgate.yml:1:1: unknown key "coverage" (known: project, patch, ignore, components, comment, base_branch, parts)',
    );
  });

  it('refuses a value of the wrong type or range at its line and column', () => {
    expect(refused('patch:\n  target: "80%"\n').message).toBe(
      'covgate.yml:2:11: patch.target: must be a number',
    );
    expect(refused('project:\n  target: 120\n').message).toBe(
      'covgate.yml:2:11: project.target: must be <= 100',
    );
    expect(refused('project:\n  fail: 0\n').message).toBe(
      'covgate.yml:2:9: project.fail: must be > 0',
    );
    expect(refused('ignore: vendor/**\n').message).toBe('covgate.yml:1:9: ignore: must be a list');
    expect(refused('ignore:\n  - vendor/**\n  - 3\n').message).toBe(
      'covgate.yml:3:5: ignore.1: must be a string',
    );
    expect(refused('project:\n  informational: yes\n').message).toBe(
      'covgate.yml:2:18: project.informational: must be true or false',
    );
    expect(refused('components:\n  api: []\n').message).toBe(
      'covgate.yml:2:8: components.api: must list at least one glob',
    );
    expect(refused('components:\n  "my api": [api/**]\n').message).toBe(
      'covgate.yml:2:3: components: "my api" is not a component name: a letter or digit, then letters, digits, ".", "_" or "-"; 64 characters at most',
    );
    expect(refused('comment: sometimes\n').message).toBe(
      'covgate.yml:1:10: comment: must be true, false, or a mapping with a list of sections (verdict, patch, files)',
    );
    expect(refused('- project\n').message).toBe('covgate.yml:1:1: must be a mapping');
  });

  it('refuses a YAML syntax error and a repeated key at their line and column', () => {
    expect(refused('project:\n  warn: [1\n').message).toMatch(/^covgate\.yml:\d+:\d+: /);
    expect(refused('patch:\n  target: 80\npatch:\n  target: 90\n').message).toBe(
      'covgate.yml:3:1: Map keys must be unique',
    );
  });
});

describe('didYouMean', () => {
  it('suggests a near name only', () => {
    expect(didYouMean('ignores', ['ignore', 'patch'])).toBe('ignore');
    expect(didYouMean('Patch', ['ignore', 'patch'])).toBe('patch');
    expect(didYouMean('flags', ['ignore', 'patch'])).toBeUndefined();
  });
});

describe('covgate config check', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'covgate-config-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('exits 0 on a valid file and 2 with line:column on a broken one', async () => {
    await writeFile(join(dir, 'covgate.yml'), 'patch:\n  target: 80\n');
    expect(await covgateIn(dir, ['config', 'check'], { PATH: process.env.PATH })).toEqual({
      code: 0,
      stdout: 'covgate.yml: valid\n',
      stderr: '',
    });
    await writeFile(join(dir, 'covgate.yml'), 'patch:\n  targett: 80\n');
    expect(await covgateIn(dir, ['config', 'check'], { PATH: process.env.PATH })).toEqual({
      code: 2,
      stdout: '',
      stderr: 'covgate: covgate.yml:2:3: patch: unknown key "targett" (did you mean "target"?)\n',
    });
  });

  it('refuses both covgate.yml and .covgate.yml', async () => {
    await writeFile(join(dir, 'covgate.yml'), 'patch:\n  target: 80\n');
    await writeFile(join(dir, '.covgate.yml'), 'patch:\n  target: 80\n');
    const result = await covgateIn(dir, ['config', 'check'], { PATH: process.env.PATH });
    await rm(join(dir, '.covgate.yml'));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('both covgate.yml and .covgate.yml');
  });

  it('shows each effective value with where it came from', async () => {
    await writeFile(join(dir, 'covgate.yml'), 'project:\n  fail: 2\n  target: 60\n');
    const result = await covgateIn(
      dir,
      ['config', 'show', '--branch', 'main', '--warn-threshold', '0.2', '--json'],
      { PATH: process.env.PATH },
    );
    expect(result.code).toBe(0);
    const shown = JSON.parse(result.stdout);
    expect(shown.policy).toEqual({
      file: 'covgate.yml',
      commit: null,
      digest: '7971e268f42d5d34ffefe17f22635f0c8b890564a46511c25154da050c6951f4',
    });
    expect(shown.effective.project).toEqual({
      warn: { value: 0.2, source: 'flag' },
      fail: { value: 2, source: 'file' },
      target: { value: 60, source: 'file' },
      branch_target: { value: null, source: 'default' },
      informational: { value: false, source: 'default' },
    });
    expect(shown.effective.patch.target).toEqual({ value: null, source: 'repository setting' });
    expect(shown.effective.patch.branch_target).toEqual({ value: null, source: 'default' });
    expect(shown.effective.base_branch).toEqual({ value: 'main', source: 'default' });
  });

  it('names the organisation minimum where it raises a target, read with the API token', async () => {
    await writeFile(join(dir, 'covgate.yml'), 'project:\n  target: 60\npatch:\n  target: 90\n');
    const s = await service();
    await s.store.saveOrganisationSettings({
      orgId: s.org.id,
      minPatchTarget: 95,
      minProjectTarget: 70,
      updatedBy: 'usr_owner',
      updatedAt: new Date('2026-01-01T00:00:00Z'),
    });
    const env = {
      PATH: process.env.PATH,
      COVGATE_TOKEN: s.token,
      COVGATE_URL: 'http://covgate.test',
    };
    const text = await covgateIn(dir, ['config', 'show', '--branch', 'main'], env, s.fetch);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines).toContain('project.target: 70 (organisation minimum)');
    expect(lines).toContain('patch.target: 95 (organisation minimum)');

    await writeFile(join(dir, 'covgate.yml'), 'project:\n  target: 75\n');
    const json = await covgateIn(
      dir,
      ['config', 'show', '--branch', 'main', '--json'],
      env,
      s.fetch,
    );
    const shown = JSON.parse(json.stdout);
    expect(shown.organisation_minimums).toEqual({ min_patch_target: 95, min_project_target: 70 });
    expect(shown.effective.project.target).toEqual({ value: 75, source: 'file' });
    expect(shown.effective.patch.target).toEqual({
      value: null,
      source: 'repository setting',
      minimum: 95,
    });
    const plain = await covgateIn(dir, ['config', 'show', '--branch', 'main'], env, s.fetch);
    expect(plain.stdout.split('\n')).toContain(
      "patch.target: the repository's setting, else 80, at least 95 (organisation minimum) (repository setting)",
    );
  });

  it("reads the repository's patch target with the API token, then the organisation's minimum", async () => {
    await writeFile(join(dir, 'covgate.yml'), 'project:\n  target: 60\n');
    const s = await service();
    const env = {
      PATH: process.env.PATH,
      COVGATE_TOKEN: s.token,
      COVGATE_URL: 'http://covgate.test',
    };
    const show = (repo: string) =>
      covgateIn(dir, ['config', 'show', '--branch', 'main', '--repo', repo], env, s.fetch);
    const patchLine = (stdout: string) =>
      stdout.split('\n').find((l) => l.startsWith('patch.target'));
    await s.store.saveRepositorySettings({
      orgId: s.org.id,
      repo: 'api',
      patchTarget: 85.5,
      webUrl: null,
      webUrlSource: null,
      expectedParts: null,
      partsDeadlineMinutes: null,
      carryforwardParts: null,
      ciTrust: null,
      updatedAt: new Date('2026-01-01T00:00:00Z'),
    });

    const set = await show('api');
    expect([set.code, patchLine(set.stdout)], set.stderr).toEqual([
      0,
      'patch.target: 85.5 (repository setting)',
    ]);
    const unset = await show('web');
    expect([unset.code, patchLine(unset.stdout)], unset.stderr).toEqual([
      0,
      'patch.target: 80 (default)',
    ]);
    const json = await covgateIn(
      dir,
      ['config', 'show', '--branch', 'main', '--repo', 'api', '--json'],
      env,
      s.fetch,
    );
    expect(JSON.parse(json.stdout).repository_settings).toEqual({
      repo: 'api',
      patch_target: 85.5,
      effective_patch_target: 85.5,
    });

    await s.store.saveOrganisationSettings({
      orgId: s.org.id,
      minPatchTarget: 90,
      minProjectTarget: null,
      updatedBy: 'usr_owner',
      updatedAt: new Date('2026-01-01T00:00:00Z'),
    });
    const raised = await show('api');
    expect(patchLine(raised.stdout)).toBe('patch.target: 90 (organisation minimum)');

    // A flag or the file wins over the repository's setting, as the service judges.
    const flagged = await covgateIn(
      dir,
      ['config', 'show', '--branch', 'main', '--repo', 'api', '--patch-target', '95'],
      env,
      s.fetch,
    );
    expect(patchLine(flagged.stdout)).toBe('patch.target: 95 (flag)');
  });

  it("says why it did not read the repository's patch target", async () => {
    await writeFile(join(dir, 'covgate.yml'), 'project:\n  target: 60\n');
    const s = await service();
    const refused = await covgateIn(
      dir,
      ['config', 'show', '--branch', 'main', '--repo', 'api'],
      { PATH: process.env.PATH, COVGATE_TOKEN: 'cg_wrong', COVGATE_URL: 'http://covgate.test' },
      s.fetch,
    );
    expect(refused.code).toBe(0);
    expect(refused.stderr.split('\n').filter((l) => l.includes('not read'))).toEqual([
      expect.stringMatching(/^covgate: organisation minimums not read: .+/),
      expect.stringMatching(/^covgate: the repository's patch target not read: .+/),
    ]);
    expect(refused.stdout.split('\n')).toContain(
      "patch.target: the repository's setting, else 80 (repository setting)",
    );
    const none = await covgateIn(dir, ['config', 'show', '--branch', 'main', '--repo', 'api'], {
      PATH: process.env.PATH,
    });
    expect(none.stderr).toContain(
      "covgate: the repository's patch target not read: no COVGATE_TOKEN\n",
    );
  });

  it('says it did not read the organisation minimums without a token', async () => {
    await writeFile(join(dir, 'covgate.yml'), 'project:\n  target: 60\n');
    const result = await covgateIn(dir, ['config', 'show', '--branch', 'main'], {
      PATH: process.env.PATH,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'covgate: organisation minimums not read: no COVGATE_TOKEN (the service applies them to every run)',
    );
    expect(result.stdout.split('\n')).toContain('project.target: 60 (file)');
  });

  it('shows the branch targets with where they came from, none by default', async () => {
    await writeFile(
      join(dir, 'covgate.yml'),
      'project:\n  branch_target: 70\npatch:\n  branch_target: 50.5\n',
    );
    const result = await covgateIn(dir, ['config', 'show', '--branch', 'main'], {
      PATH: process.env.PATH,
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.filter((line) => line.includes('branch_target'))).toEqual([
      'project.branch_target: 70 (file)',
      'patch.branch_target: 50.5 (file)',
    ]);
    await writeFile(join(dir, 'covgate.yml'), 'project:\n  branch_target: 101\n');
    const refused = await covgateIn(dir, ['config', 'check'], { PATH: process.env.PATH });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('branch_target');
  });
});

describe('covgate.schema.json', () => {
  it('is published with the docs as the CLI ships it', async () => {
    const { readFile } = await import('node:fs/promises');
    const cli = new URL('../covgate.schema.json', import.meta.url);
    const docs = new URL('../../../docs/public/covgate.schema.json', import.meta.url);
    expect(await readFile(docs, 'utf8')).toBe(await readFile(cli, 'utf8'));
  });
});
