import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, type Started, startListening, stop } from '../../../test/support/processes.js';

// Patch coverage and components end to end: the built `covgate` bin against the built
// reference server, on its embedded SQLite store and on MariaDB (COVGATE_MYSQL_URL).

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const serverDist = fileURLToPath(new URL('../../../examples/server/dist/', import.meta.url));
const built = existsSync(bin) && existsSync(join(serverDist, 'main.js'));
const mysqlUrl = process.env.COVGATE_MYSQL_URL;

/** lcov of `src/a.js` with the hit count of each line, 1-based. */
const lcov = (hits: number[]) =>
  `SF:src/a.js\n${hits.map((count, index) => `DA:${index + 1},${count}`).join('\n')}\nend_of_record\n`;

const stores: [string, Record<string, string> | null][] = [
  ['SQLite', {}],
  ['MariaDB', mysqlUrl ? { DATABASE_URL: mysqlUrl } : null],
];

describe.each(stores)('patch rule and components through the CLI, on %s', (name, storeEnv) => {
  const skip = (!built && process.env.CI !== '1') || storeEnv === null;
  describe.skipIf(skip)(name, { timeout: 120_000 }, () => {
    let workDir: string;
    let server: Started;
    let token: string;
    let org: string;

    const env = (cwd: string) => ({
      PATH: process.env.PATH,
      HOME: workDir,
      NO_COLOR: '1',
      COVGATE_URL: server.url,
      COVGATE_TOKEN: token,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t.invalid',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t.invalid',
      GIT_CONFIG_NOSYSTEM: '1',
      PWD: cwd,
    });
    const covgate = (cwd: string, args: string[]) =>
      run(process.execPath, [bin, 'report', '--report', 'lcov.info', ...args], {
        cwd,
        env: env(cwd),
      });
    const git = async (cwd: string, ...args: string[]) => {
      const result = await run('git', args, { cwd, env: env(cwd) });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout.trim();
    };
    const api = async (path: string) => {
      const answer = await fetch(`${server.url}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return answer;
    };

    beforeAll(async () => {
      workDir = await mkdtemp(join(tmpdir(), 'covgate-patch-e2e-'));
      org = `patch-${Date.now().toString(36)}`;
      const serverEnv = {
        PATH: process.env.PATH,
        HOME: workDir,
        PORT: '0',
        COVGATE_DATA_DIR: join(workDir, 'data'),
        ...storeEnv,
      };
      server = await startListening([join(serverDist, 'main.js')], {
        cwd: workDir,
        env: serverEnv,
      });
      const admin = await run(process.execPath, [join(serverDist, 'admin.js'), 'bootstrap', org], {
        cwd: workDir,
        env: serverEnv,
      });
      const session = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin.stdout)?.[1] as string;
      const created = await fetch(`${server.url}/v1/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ci' }),
      });
      token = ((await created.json()) as { secret: string }).secret;
    }, 180_000);

    afterAll(async () => {
      await stop(server);
      await rm(workDir, { recursive: true, force: true });
    });

    /** A git repository with `src/a.js` of three covered lines committed on main. */
    const baseRepository = async (): Promise<{ dir: string; base: string }> => {
      const dir = await mkdtemp(join(workDir, 'repo-'));
      await mkdir(join(dir, 'src'));
      await writeFile(join(dir, 'src', 'a.js'), 'a();\nb();\nc();\n');
      await writeFile(join(dir, '.gitignore'), 'lcov.info\n');
      await git(dir, 'init', '-q', '-b', 'main');
      await git(dir, 'add', '-A');
      await git(dir, 'commit', '-q', '-m', 'base');
      await writeFile(join(dir, 'lcov.info'), lcov([1, 1, 1]));
      return { dir, base: await git(dir, 'rev-parse', 'HEAD') };
    };

    it('fails a pull request that adds untested lines on the patch rule, compared at its merge base', async () => {
      const { dir, base } = await baseRepository();
      const onMain = await covgate(dir, ['--repo', 'gate', '--branch', 'main']);
      expect(onMain.code, onMain.stderr).toBe(0);
      expect(onMain.stdout).toMatch(/^gate@main: coverage 100\.00%, no baseline on main yet/);

      await git(dir, 'checkout', '-q', '-b', 'feature');
      await writeFile(join(dir, 'src', 'a.js'), 'a();\nb();\nc();\nd();\ne();\nf();\ng();\n');
      await git(dir, 'commit', '-q', '-am', 'untested lines');
      // Lines 4-7 are new; the tests run only line 4 of them: patch 25 %, total 5 of 7.
      await writeFile(join(dir, 'lcov.info'), lcov([1, 1, 1, 1, 0, 0, 0]));
      // The delta thresholds of 50 let the drop pass: only the patch rule can fail it.
      const featureAgainstMain = [
        '--repo',
        'gate',
        '--branch',
        'feature',
        '--base-branch',
        'main',
        '--fail-threshold',
        '50',
        '--warn-threshold',
        '50',
      ];
      const pr = await covgate(dir, featureAgainstMain);
      expect(pr.code, pr.stderr).toBe(1);
      expect(pr.stdout).toBe(
        'fail gate@feature: coverage 57.14%, baseline 100.00% on main, delta -42.86, patch 25.00% (1 of 4 lines, target 80.00%); failed by the patch rule (patch coverage below its target)\n',
      );
      expect(pr.stderr).toContain(
        `covgate: patch: 1 of 4 changed lines covered, 25.00% (4 lines changed in 1 file since ${base.slice(0, 12)}, the merge base with main)`,
      );

      const listed = (await (await api(`/v1/executions?org=${org}&repo=gate`)).json()) as {
        executions: { id: string }[];
      };
      const detail = await (await api(`/v1/executions/${listed.executions[0]?.id}`)).json();
      expect(detail).toMatchObject({
        branch: 'feature',
        outcome: 'fail',
        decided_by: 'patch',
        base_commit: base,
        baseline: { coverage: 100, commit: base, selected_by: 'base_commit' },
        patch: {
          covered: 1,
          coverable: 4,
          percent: 25,
          target: 80,
          target_source: 'default',
          passed: false,
        },
        file_count: 1,
        files: [
          { path: 'src/a.js', covered: 4, coverable: 7, patch_covered: 1, patch_coverable: 4 },
        ],
        patch_files: [
          { path: 'src/a.js', patch_covered: 1, patch_coverable: 4, patch_percent: 25 },
        ],
        tree: [
          { path: '', covered: 4, coverable: 7, percent: 57.14, files: 1 },
          { path: 'src/', covered: 4, coverable: 7, percent: 57.14, files: 1 },
        ],
        tree_truncated: false,
      });
      // The run page's "files that changed": the main run's list against this one's.
      const { baseline, changes } = detail as { baseline: { id: string }; changes: unknown };
      expect(changes).toEqual({
        baseline_id: baseline.id,
        total: 1,
        truncated: false,
        files: [
          {
            path: 'src/a.js',
            covered: 4,
            coverable: 7,
            percent: 57.14,
            baseline_covered: 3,
            baseline_coverable: 3,
            baseline_percent: 100,
            change: -42.86,
          },
        ],
      });

      // A repository default of 20 lets the same change pass.
      const settings = await fetch(`${server.url}/v1/repos/settings`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ repo: 'gate', patch_target: 20 }),
      });
      expect(settings.status).toBe(200);
      const again = await covgate(dir, [...featureAgainstMain, '--json']);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({
        outcome: 'pass',
        decided_by: 'delta thresholds',
        patch: { target: 20, target_source: 'repository', outcome: 'pass', decided_by: 'service' },
      });
    });

    it('deepens a shallow clone of a pull request itself and fails it on the patch rule', async () => {
      // origin: main with src/a.js, then a branch adding 13 lines (7 of them tested) and 70
      // more commits, so that the merge base is further than the first fetch's 50 commits.
      const { dir, base } = await baseRepository();
      const onMain = await covgate(dir, ['--repo', 'shallow', '--branch', 'main']);
      expect(onMain.code, onMain.stderr).toBe(0);
      await git(dir, 'checkout', '-q', '-b', 'feature');
      const added = Array.from({ length: 13 }, (_, i) => `f${i}();\n`).join('');
      await writeFile(join(dir, 'src', 'a.js'), `a();\nb();\nc();\n${added}`);
      await git(dir, 'commit', '-q', '-am', 'thirteen lines');
      for (let i = 0; i < 70; i++)
        await git(dir, 'commit', '-q', '--allow-empty', '-m', `more ${i}`);
      const head = await git(dir, 'rev-parse', 'HEAD');
      await git(dir, 'checkout', '-q', 'main');
      await git(dir, 'commit', '-q', '--allow-empty', '-m', 'main moves on');
      const origin = `${dir}.git`;
      await git(workDir, 'clone', '-q', '--bare', dir, origin);
      // What actions/checkout does by default: one commit of the pull request's branch.
      const clone = `${dir}-shallow`;
      await git(
        workDir,
        'clone',
        '-q',
        '--depth',
        '1',
        '--branch',
        'feature',
        `file://${origin}`,
        clone,
      );
      await writeFile(
        join(clone, 'lcov.info'),
        lcov([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]),
      );
      const event = join(workDir, `pull_request-${Date.now()}.json`);
      await writeFile(
        event,
        JSON.stringify({
          pull_request: { number: 1, head: { ref: 'feature', sha: head }, base: { ref: 'main' } },
        }),
      );
      const result = await run(
        process.execPath,
        [
          bin,
          'report',
          '--report',
          'lcov.info',
          '--repo',
          'shallow',
          '--fail-threshold',
          '50',
          '--warn-threshold',
          '50',
        ],
        {
          cwd: clone,
          env: {
            ...env(clone),
            GITHUB_ACTIONS: 'true',
            GITHUB_EVENT_NAME: 'pull_request',
            GITHUB_EVENT_PATH: event,
            GITHUB_REF: 'refs/pull/1/merge',
            GITHUB_HEAD_REF: 'feature',
            GITHUB_BASE_REF: 'main',
            GITHUB_REPOSITORY: 'acme/shallow',
          },
        },
      );
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toBe(
        'fail shallow@feature: coverage 62.50%, baseline 100.00% on main, delta -37.50, patch 53.84% (7 of 13 lines, target 80.00%); failed by the patch rule (patch coverage below its target)\n',
      );
      const fetch = (depth: number) =>
        `covgate: fetching the history the patch needs: git fetch --no-tags --depth=${depth} origin +refs/heads/main:refs/remotes/origin/main ${head}\n`;
      // The history comes first: the policy (covgate.yml) is read at the merge base before the
      // reports are.
      expect(result.stderr).toContain(
        `${fetch(50)}${fetch(200)}covgate: lcov.info (lcov): 10 of 16 lines in 1 file, 62.50%\ncovgate: patch: 7 of 13 changed lines covered, 53.84% (13 lines changed in 1 file since ${base.slice(0, 12)}, the merge base with origin/main)\n`,
      );
      const listed = (await (
        await api(`/v1/executions?org=${org}&repo=shallow&branch=feature`)
      ).json()) as {
        executions: unknown[];
      };
      expect(listed.executions).toEqual([
        expect.objectContaining({
          pull_request: 1,
          commit: head,
          base_commit: base,
          outcome: 'fail',
          decided_by: 'patch',
          patch: expect.objectContaining({
            covered: 7,
            coverable: 13,
            percent: 53.84,
            passed: false,
          }),
        }),
      ]);
    });

    it('keeps two baselines and two badges for a monorepo of two components', async () => {
      const { dir } = await baseRepository();
      const post = (component: string, hits: number[], branch: string) =>
        writeFile(join(dir, 'lcov.info'), lcov(hits)).then(() =>
          covgate(dir, ['--repo', 'mono', '--branch', branch, '--component', component, '--json']),
        );
      expect((await post('api', [1, 1, 1], 'main')).code).toBe(0);
      expect((await post('web', [1, 0, 0], 'main')).code).toBe(0);

      const badge = async (component: string) =>
        /aria-label="([^"]*)"/.exec(
          await (await fetch(`${server.url}/v1/badge/${org}/mono?component=${component}`)).text(),
        )?.[1];
      expect(await badge('api')).toBe('coverage: 100%');
      expect(await badge('web')).toBe('coverage: 33%');

      await git(dir, 'checkout', '-q', '-b', 'change');
      const api = JSON.parse((await post('api', [1, 1, 0], 'change')).stdout);
      const web = JSON.parse((await post('web', [1, 1, 0], 'change')).stdout);
      expect(api).toMatchObject({ outcome: 'fail', baseline: 100, delta: '-33.34' });
      expect(web).toMatchObject({ outcome: 'pass', baseline: 33.33, delta: '+33.33' });
    });
  });
});
