import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepo, type TestRepo } from './git-support.js';
import { covgateIn } from './in-process.js';
import { service } from './in-process-service.js';

// The policy file through `covgate report`, on a git history made here, against covgate's own
// API in-process (memory store): a change is judged by the covgate.yml of its merge base.

/** lcov of `src/a.js` with the hit count of each line, 1-based. */
const lcov = (path: string, hits: number[]) =>
  `SF:${path}\n${hits.map((count, index) => `DA:${index + 1},${count}`).join('\n')}\nend_of_record\n`;

const BASE_POLICY = 'patch:\n  target: 90\n';
/** sha256 of the base's covgate.yml: the digest the run must record. */
const BASE_DIGEST = createHash('sha256').update(BASE_POLICY).digest('hex');

describe('a pull request that lowers the patch target in covgate.yml', () => {
  let repo: TestRepo;
  let mergeBase: string;

  beforeAll(async () => {
    repo = await createRepo('policy-gate');
    await repo.write({
      'covgate.yml': BASE_POLICY,
      'src/a.js': 'a();\nb();\n',
      '.gitignore': 'lcov.info\n',
    });
    await repo.commit('base with a patch target of 90');
    mergeBase = (await repo.git('rev-parse', 'HEAD')).trim();
    await repo.git('checkout', '-q', '-b', 'feature');
    // The change adds 4 lines and tests 2 of them (50 %), and lowers the target to 10.
    await repo.write({
      'covgate.yml': 'patch:\n  target: 10\n',
      'src/a.js': 'a();\nb();\nc();\nd();\ne();\nf();\n',
      'lcov.info': lcov('src/a.js', [1, 1, 1, 0, 0, 1]),
    });
    await repo.commit('lower the target and add untested code');
  });

  afterAll(() => repo?.remove());

  const report = (args: string[], s: Awaited<ReturnType<typeof service>>) =>
    covgateIn(
      repo.dir,
      ['report', '--repo', 'web', '--report', 'lcov.info', ...args],
      { ...repo.env, COVGATE_TOKEN: s.token, COVGATE_URL: 'http://covgate.test', NO_COLOR: '1' },
      s.fetch,
    );

  it("is still judged by the base's policy: the patch rule at 90 fails it (exit 1)", async () => {
    const s = await service();
    const result = await report(['--branch', 'feature', '--base-branch', 'main', '--json'], s);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      'covgate: this change edits covgate.yml; the new policy applies after merge\n',
    );
    expect(s.sent).toMatchObject([
      {
        patch: { covered: 2, coverable: 4 },
        patch_target: 90,
        policy: { digest: BASE_DIGEST, commit: mergeBase },
        policy_edited: 'covgate.yml',
      },
    ]);
    // The service recorded which policy decided.
    const recorded = await s.fetch(
      `http://covgate.test/v1/executions/${JSON.parse(result.stdout).execution_id}`,
      {
        headers: { authorization: `Bearer ${s.token}` },
      },
    );
    const stored = (await recorded.json()) as { policy: unknown; policy_edited: unknown };
    expect(stored.policy).toEqual({ digest: BASE_DIGEST, commit: mergeBase });
    // ...and that the change edits it: the pull request's comment says so.
    expect(stored.policy_edited).toBe('covgate.yml');
    const verdict = JSON.parse(result.stdout);
    expect(verdict).toMatchObject({
      outcome: 'fail',
      decided_by: 'patch rule',
      exit_code: 1,
      patch: { percent: 50, target: 90, target_source: 'run', outcome: 'fail' },
      policy: { file: 'covgate.yml', commit: mergeBase },
      policy_edited: 'this change edits covgate.yml; the new policy applies after merge',
    });
    expect(verdict.policy.digest).toBe(BASE_DIGEST);
  });

  it('a flag still overrides the file', async () => {
    const s = await service();
    const result = await report(
      ['--branch', 'feature', '--base-branch', 'main', '--patch-target', '40'],
      s,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(s.sent).toMatchObject([{ patch_target: 40 }]);
  });

  it('a flag below the organisation minimum is raised to it, and the verdict says so', async () => {
    const s = await service();
    await s.store.saveOrganisationSettings({
      orgId: s.org.id,
      minPatchTarget: 60,
      minProjectTarget: null,
      updatedBy: 'usr_owner',
      updatedAt: new Date('2026-01-01T00:00:00Z'),
    });
    const args = ['--branch', 'feature', '--base-branch', 'main', '--patch-target', '40'];
    const result = await report(args, s);
    expect(result.code, result.stderr).toBe(1);
    expect(s.sent).toMatchObject([{ patch_target: 40 }]);
    expect(result.stderr).toContain(
      'covgate: Failed by the patch rule: 50.00% of the patch’s lines are covered, below the target of 60.00% (the organisation’s minimum).',
    );
    const json = await report([...args, '--json'], s);
    expect(JSON.parse(json.stdout)).toMatchObject({
      outcome: 'fail',
      patch: { percent: 50, target: 60, target_source: 'organisation', outcome: 'fail' },
    });
  });

  it("a push uses the commit's own file", async () => {
    const s = await service();
    const shown = await covgateIn(
      repo.dir,
      ['config', 'show', '--branch', 'feature', '--json'],
      repo.env,
    );
    expect(shown.code, shown.stderr).toBe(0);
    const head = (await repo.git('rev-parse', 'HEAD')).trim();
    expect(JSON.parse(shown.stdout)).toMatchObject({
      policy: { file: 'covgate.yml', commit: head },
      edited: null,
      effective: { patch: { target: { value: 10, source: 'file' } } },
    });
    const pushed = await report(['--branch', 'feature'], s);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(s.sent).toHaveLength(1);
    expect(s.sent[0]).not.toHaveProperty('patch_target');
    expect(s.sent[0]).not.toHaveProperty('policy_edited');
  });

  it('a broken policy file in the change fails the run with exit 2, before anything is sent', async () => {
    const s = await service();
    await repo.write({ 'covgate.yml': 'patch:\n  target: 10\n  informatinal: true\n' });
    await repo.commit('typo');
    const result = await report(['--branch', 'feature', '--base-branch', 'main'], s);
    await repo.git('reset', '-q', '--hard', 'HEAD~1');
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining(
        ': patch: unknown key "informatinal" (did you mean "informational"?)\n',
      ),
    });
    expect(result.stderr).toMatch(/covgate: covgate\.yml at [0-9a-f]{12}:3:3: /);
    expect(s.sent).toEqual([]);
  });
});

describe('the project target and informational rules of covgate.yml', () => {
  let repo: TestRepo;
  beforeAll(async () => {
    repo = await createRepo('policy-floor');
    await repo.write({ 'src/a.js': 'a();\nb();\n', 'lcov.info': lcov('src/a.js', [1, 0]) });
  });
  afterAll(() => repo?.remove());

  const runWith = async (policy: string, extra: string[] = []) => {
    await repo.write({ 'covgate.yml': policy });
    await repo.commit(`policy ${policy}`);
    const s = await service();
    const result = await covgateIn(
      repo.dir,
      ['report', '--repo', 'web', '--branch', 'main', '--report', 'lcov.info', ...extra],
      { ...repo.env, COVGATE_TOKEN: s.token, COVGATE_URL: 'http://covgate.test', NO_COLOR: '1' },
      s.fetch,
    );
    return { ...result, sent: s.sent };
  };

  it('a run below project.target fails (exit 1), decided by the service', async () => {
    const result = await runWith('project:\n  target: 90\n');
    expect(result.code, result.stderr).toBe(1);
    expect(result.sent).toMatchObject([{ coverage: 50, project_target: 90 }]);
    expect(result.stdout).toBe(
      'fail web@main: coverage 50.00%, no baseline on main yet: nothing to compare, recorded as the first run; failed by the project target (coverage below its floor)\n',
    );
    expect(result.stderr).toContain(
      'covgate: Failed by the project target: coverage 50.00% is below the floor of 90.00%. There is no baseline: the base branch had no run to compare with.\n',
    );
  });

  it('project.informational makes it a warning (exit 0; 1 with --fail-on-warn)', async () => {
    const policy = 'project:\n  target: 90\n  informational: true\n';
    const result = await runWith(policy, ['--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.sent).toMatchObject([{ project_target: 90, project_informational: true }]);
    expect(JSON.parse(result.stdout)).toMatchObject({
      outcome: 'warn',
      decided_by: 'project target',
      project_target: { target: 90, passed: false },
    });
    expect((await runWith(`${policy}# again\n`, ['--fail-on-warn'])).code).toBe(1);
  });

  it('a run at the floor passes', async () => {
    const result = await runWith('project:\n  target: 50\n');
    expect(result.code, result.stderr).toBe(0);
  });

  it("sends covgate.yml's comment: false, or its sections; nothing for the whole comment", async () => {
    const off = await runWith('comment: false\n');
    expect(off.code, off.stderr).toBe(0);
    expect(off.sent).toMatchObject([{ comment: false }]);
    const some = await runWith('comment:\n  sections: [files, verdict]\n');
    expect(some.sent).toMatchObject([{ comment: { sections: ['files', 'verdict'] } }]);
    const whole = await runWith('comment: true\n');
    expect(whole.sent[0]).not.toHaveProperty('comment');
  });
});
