import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BuiltServer,
  isServerBuilt,
  startBuiltServer,
} from '../../../test/support/built-server.js';
import { run } from '../../../test/support/processes.js';

// `covgate doctor`, the built bin, against the built reference server: a pull request's job
// whose every check passes once the base branch has a run, and what it prints before.

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const built = existsSync(bin) && isServerBuilt();
const serverDist = fileURLToPath(new URL('../../../examples/server/dist/', import.meta.url));

describe.skipIf(!built && process.env.CI !== '1')(
  'covgate doctor against the built server',
  { timeout: 180_000 },
  () => {
    let workDir: string;
    let server: BuiltServer;
    let token: string;
    let org: string;

    const env = (cwd: string, extra: Record<string, string> = {}) => ({
      PATH: process.env.PATH,
      HOME: workDir,
      NO_COLOR: '1',
      PWD: cwd,
      COVGATE_URL: server.url,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t.invalid',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t.invalid',
      GIT_CONFIG_NOSYSTEM: '1',
      ...extra,
    });
    const covgate = (cwd: string, args: string[], extra: Record<string, string> = {}) =>
      run(process.execPath, [bin, ...args], { cwd, env: env(cwd, extra) });
    const git = async (cwd: string, ...args: string[]) => {
      const result = await run('git', args, { cwd, env: env(cwd) });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout.trim();
    };

    beforeAll(async () => {
      workDir = await mkdtemp(join(tmpdir(), 'covgate-doctor-e2e-'));
      org = `doctor-${Date.now().toString(36)}`;
      const serverEnv = {
        PATH: process.env.PATH,
        HOME: workDir,
        PORT: '0',
        COVGATE_DATA_DIR: join(workDir, 'data'),
      };
      server = await startBuiltServer(serverEnv);
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
      await server?.stop('SIGTERM');
      await rm(workDir, { recursive: true, force: true });
    });

    it('fails on a base branch without runs and a refused token, then passes once main has a run', async () => {
      const dir = join(workDir, 'web');
      await mkdir(join(dir, 'src'), { recursive: true });
      await writeFile(join(dir, 'src', 'a.js'), 'a();\nb();\n');
      await writeFile(join(dir, '.gitignore'), 'lcov.info\n');
      await git(dir, 'init', '-q', '-b', 'main');
      await git(dir, 'add', '-A');
      await git(dir, 'commit', '-q', '-m', 'base');
      await writeFile(join(dir, 'lcov.info'), 'SF:src/a.js\nDA:1,1\nDA:2,1\nend_of_record\n');
      const base = await git(dir, 'rev-parse', 'HEAD');
      await git(dir, 'checkout', '-q', '-b', 'feature');
      const args = ['doctor', '--repo', 'web', '--base-branch', 'main'];

      const refused = await covgate(dir, args, { COVGATE_TOKEN: `cvg_${'0'.repeat(40)}` });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe('');
      expect(refused.stdout.split('\n').slice(0, 2)).toEqual([
        `pass url: ${server.url} answers as the covgate API and is ready`,
        `fail credential: ${server.url} refuses COVGATE_TOKEN (invalid token): revoked, expired, or a token of another server Fix: create an API token with the execute scope (\`covgate tokens create ci\`, or the API tokens page of the dashboard) and store it as the CI secret COVGATE_TOKEN`,
      ]);

      const noBaseline = await covgate(dir, [...args, '--json'], { COVGATE_TOKEN: token });
      expect(noBaseline.code).toBe(1);
      const checks = JSON.parse(noBaseline.stdout).checks as { check: string; verdict: string }[];
      expect(checks.find((c) => c.check === 'base branch')).toEqual({
        check: 'base branch',
        verdict: 'fail',
        message: 'web on main has no run yet, so a change is compared with nothing (no baseline)',
        fix: 'post a run from the base branch first: run covgate on pushes to it (on: push: branches: [main])',
      });

      await git(dir, 'checkout', '-q', 'main');
      const posted = await covgate(dir, ['report', '--report', 'lcov.info', '--repo', 'web'], {
        COVGATE_TOKEN: token,
      });
      expect(posted.code, posted.stderr).toBe(0);
      await git(dir, 'checkout', '-q', 'feature');
      const passing = await covgate(dir, args, { COVGATE_TOKEN: token });
      expect(passing.stdout).toMatch(
        new RegExp(
          `^pass url: .*\\npass credential: token [0-9a-f]{32} of organisation ${org} has the execute scope\\npass target: web@feature, commit ${base}, base branch main\\npass fetch depth: the whole history; the merge base with main is ${base.slice(0, 12)}, so the patch is measured without fetching\\npass base branch: web on main has 1 run; the latest passing is exe_[0-9a-z]{26} at 100\\.00% \\(.*\\)\\npass reports: lcov\\.info \\(lcov\\): 2 of 2 lines in 1 file, 100\\.00%\\nwarn repository link: web is not linked to a code host \\(latest run exe_[0-9a-z]{26}\\): .*\\n$`,
        ),
      );
      expect(passing.code).toBe(0);
    });
  },
);
