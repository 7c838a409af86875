import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BuiltServer,
  freePort,
  isServerBuilt,
  startBuiltServer,
} from '../../../test/support/built-server.js';
import { listenForTest } from '../../../test/support/http-server.js';
import { run } from '../../../test/support/processes.js';

// A verdict through an outage: the built `covgate` against the built reference server,
// stopped and started again on the same port and data. Under --allow-unreachable the CLI
// applies the patch rule itself and keeps the run; `covgate flush` posts it later with the
// key of its first attempt.

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const built = existsSync(bin) && isServerBuilt();
const serverDist = fileURLToPath(new URL('../../../examples/server/dist/', import.meta.url));

const lcov = (hits: number[]) =>
  `SF:src/a.js\n${hits.map((count, index) => `DA:${index + 1},${count}`).join('\n')}\nend_of_record\n`;

describe.skipIf(!built && process.env.CI !== '1')(
  'covgate through an outage of the service',
  { timeout: 180_000 },
  () => {
    let workDir: string;
    let serverEnv: Record<string, string | undefined>;
    let server: BuiltServer | undefined;
    let url: string;
    let token: string;
    let org: string;

    const env = (cwd: string, extra: Record<string, string> = {}) => ({
      PATH: process.env.PATH,
      HOME: workDir,
      NO_COLOR: '1',
      PWD: cwd,
      COVGATE_URL: url,
      COVGATE_TOKEN: token,
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
    const runs = async (repo: string) => {
      const answer = await fetch(`${url}/v1/executions?org=${org}&repo=${repo}&limit=10`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return (await answer.json()) as {
        executions: { branch: string; outcome: string; patch?: { target: number } }[];
        total: number;
      };
    };

    /** A repository whose `feature` adds four lines to main's three, one of them tested. */
    const repository = async (name: string): Promise<string> => {
      const dir = await mkdtemp(join(workDir, `${name}-`));
      await mkdir(join(dir, 'src'));
      await writeFile(join(dir, 'src', 'a.js'), 'a();\nb();\nc();\n');
      await writeFile(join(dir, '.gitignore'), 'lcov.info\n');
      await git(dir, 'init', '-q', '-b', 'main');
      await git(dir, 'add', '-A');
      await git(dir, 'commit', '-q', '-m', 'base');
      await writeFile(join(dir, 'lcov.info'), lcov([1, 1, 1]));
      const onMain = await covgate(dir, ['report', '--report', 'lcov.info', '--repo', name]);
      expect(onMain.code, onMain.stderr).toBe(0);
      await git(dir, 'checkout', '-q', '-b', 'feature');
      await writeFile(join(dir, 'src', 'a.js'), 'a();\nb();\nc();\nd();\ne();\nf();\ng();\n');
      await git(dir, 'commit', '-q', '-am', 'four lines');
      await writeFile(join(dir, 'lcov.info'), lcov([1, 1, 1, 1, 0, 0, 0]));
      return dir;
    };
    const kept = async (dir: string) =>
      (await readdir(join(dir, '.covgate', 'unsent')).catch(() => [])).sort();

    beforeAll(async () => {
      workDir = await mkdtemp(join(tmpdir(), 'covgate-outage-e2e-'));
      org = `outage-${Date.now().toString(36)}`;
      // A fixed port, so that the server started again answers at the same URL.
      serverEnv = {
        PATH: process.env.PATH,
        HOME: workDir,
        PORT: String(await freePort()),
        COVGATE_DATA_DIR: join(workDir, 'data'),
      };
      server = await startBuiltServer(serverEnv);
      url = server.url;
      const admin = await run(process.execPath, [join(serverDist, 'admin.js'), 'bootstrap', org], {
        cwd: workDir,
        env: serverEnv,
      });
      const session = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin.stdout)?.[1] as string;
      const created = await fetch(`${url}/v1/tokens`, {
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

    it('applies the patch rule while the server is stopped, and flush posts the kept runs once it is back', async () => {
      const dir = await repository('outage');
      expect(await server?.stop('SIGTERM')).toBe(0);
      server = undefined;

      const args = ['report', '--report', 'lcov.info', '--repo', 'outage', '--base-branch', 'main'];
      const failing = await covgate(dir, [...args, '--patch-target', '80', '--allow-unreachable']);
      expect(failing.code).toBe(1);
      expect(failing.stdout).toBe(
        'fail outage@feature: coverage 57.14%, patch 25.00% (1 of 4 lines, target 80.00%) checked here; project rule not evaluated (service unavailable)\n',
      );
      const [first] = await kept(dir);
      expect(failing.stderr.split('\n').slice(-4)).toEqual([
        `covgate: warning: the service at ${url} could not be reached: ECONNREFUSED (3 attempts over ${/over (\d+\.\d) s/.exec(failing.stderr)?.[1]} s); check --url / COVGATE_URL; the run was not posted (--allow-unreachable)`,
        `covgate: kept .covgate/unsent/${first}: covgate flush posts it with the same idempotency key once the service answers`,
        'covgate: not evaluated: the project rule (delta thresholds and project target), which needs the service; it judges the run when it is posted',
        '',
      ]);
      // Without --patch-target the service's default target (80) is checked, and said so.
      const defaultTarget = await covgate(dir, [...args, '--allow-unreachable', '--json']);
      expect(defaultTarget.code).toBe(1);
      expect(JSON.parse(defaultTarget.stdout)).toMatchObject({
        posted: false,
        patch: {
          covered: 1,
          coverable: 4,
          percent: 25,
          target: 80,
          target_source: 'default',
          outcome: 'fail',
          informational: false,
        },
        project: 'not evaluated',
        exit_code: 1,
      });
      const passing = await covgate(dir, [...args, '--patch-target', '20', '--allow-unreachable']);
      expect(passing.code).toBe(0);
      expect(passing.stdout).toBe(
        'pass outage@feature: coverage 57.14%, patch 25.00% (1 of 4 lines, target 20.00%) checked here; project rule not evaluated (service unavailable)\n',
      );
      expect(await kept(dir)).toHaveLength(3);

      const stillDown = await covgate(dir, ['flush']);
      expect(stillDown.code).toBe(3);
      expect(stillDown.stderr.split('\n').at(-2)).toBe(
        'covgate: 3 kept runs not posted; run covgate flush again later',
      );
      expect(await kept(dir)).toHaveLength(3);

      server = await startBuiltServer(serverEnv);
      expect(server.url).toBe(url);
      const flushed = await covgate(dir, ['flush', '--json']);
      expect(flushed.code, flushed.stderr).toBe(0);
      const answer = JSON.parse(flushed.stdout) as {
        flushed: { outcome: string; replayed: boolean; branch: string }[];
        kept: unknown[];
        exit_code: number;
      };
      expect(answer.kept).toEqual([]);
      expect(answer.exit_code).toBe(0);
      expect(answer.flushed.map((f) => [f.branch, f.outcome, f.replayed])).toEqual([
        ['feature', 'fail', false],
        ['feature', 'fail', false],
        ['feature', 'fail', false],
      ]);
      expect(await kept(dir)).toEqual([]);
      const stored = await runs('outage');
      expect(stored.total).toBe(4);
      // The service judged them: the 43-point drop fails each, whatever its patch target.
      expect(stored.executions.map((e) => [e.branch, e.outcome, e.patch?.target])).toEqual([
        ['feature', 'fail', 20],
        ['feature', 'fail', 80],
        ['feature', 'fail', 80],
        ['main', 'pass', undefined],
      ]);

      const again = await covgate(dir, ['flush']);
      expect([again.code, again.stderr]).toEqual([
        0,
        'covgate: nothing to flush: no kept run in .covgate/unsent\n',
      ]);
    });

    it('stores a run once when the server stored it but its answers were lost, and flush replays it', async () => {
      const dir = await repository('partial');
      // A proxy that hands each request to the server and drops the connection instead of
      // the answer: the server stores the run, the CLI never hears so.
      const keys: (string | null)[] = [];
      const proxy = await listenForTest(async (request, response) => {
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        keys.push(request.headers['idempotency-key']?.toString() ?? null);
        const headers = Object.fromEntries(
          Object.entries(request.headers).filter(
            ([name]) => !['host', 'connection', 'content-length'].includes(name),
          ),
        ) as Record<string, string>;
        await fetch(`${url}${request.url}`, {
          method: request.method ?? 'GET',
          headers,
          body: Buffer.concat(chunks),
        });
        response.socket?.destroy();
      });
      const lost = await covgate(
        dir,
        [
          'report',
          '--report',
          'lcov.info',
          '--repo',
          'partial',
          '--base-branch',
          'main',
          '--allow-unreachable',
          '--json',
        ],
        { COVGATE_URL: proxy.origin },
      );
      expect(lost.code).toBe(1);
      expect(keys).toHaveLength(3);
      expect(new Set(keys).size).toBe(1);
      expect(JSON.parse(lost.stdout).idempotency_key).toBe(keys[0]);
      expect((await runs('partial')).total).toBe(2);

      const flushed = await covgate(dir, ['flush']);
      expect(flushed.code, flushed.stderr).toBe(0);
      expect(flushed.stderr).toMatch(
        new RegExp(
          `^covgate: posted \\.covgate/unsent/${keys[0]}\\.json: partial@feature fail, run \\S+ \\(the service had stored it already; stored once\\)\\n$`,
        ),
      );
      expect((await runs('partial')).total).toBe(2);
      expect(await kept(dir)).toEqual([]);
    });
  },
);
