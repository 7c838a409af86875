import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, type Started, startListening, stop } from '../../test/support/processes.js';

// The quick starts' samples, run exactly as the pages include them (`<<< @/snippets/...`).
const snippets = fileURLToPath(new URL('../snippets/', import.meta.url));
const serverDist = fileURLToPath(new URL('../../examples/server/dist/', import.meta.url));
const packagesBuilt = ['core', 'express', 'hapi', 'fetch'].every((name) =>
  existsSync(fileURLToPath(new URL(`../../packages/${name}/dist/index.js`, import.meta.url))),
);
const built = packagesBuilt && existsSync(join(serverDist, 'main.js'));
if (!built) {
  console.warn(
    '[covgate] docs quick-start samples SKIPPED: run `pnpm build` first (`pnpm test` does)',
  );
}

function baseEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
}

/** What the walkthrough prints: the two records, the list, and the badge size. */
function expectWalkthroughOutput(stdout: string): void {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(4);
  const first = JSON.parse(lines[0] as string);
  const second = JSON.parse(lines[1] as string);
  expect([first.branch, first.coverage, first.delta, first.outcome]).toEqual([
    'main',
    84.13,
    '0.00',
    'pass',
  ]);
  expect([second.branch, second.coverage, second.delta, second.outcome]).toEqual([
    'feature/login',
    82.9,
    '-1.23',
    'fail',
  ]);
  const list = JSON.parse(lines[2] as string);
  expect(list.total).toBe(2);
  expect(list.executions.map((e: { id: string }) => e.id)).toEqual([second.id, first.id]);
  expect(lines[3]).toMatch(/^badge\.svg: \d+ bytes$/);
}

describe.skipIf(!built && process.env.CI !== '1')('quick-start samples', () => {
  let workDir: string;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'covgate-docs-'));
  });
  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  describe('self-host: the walkthrough on the reference server', () => {
    let server: Started | undefined;
    const dataDir = () => join(workDir, 'self-host-data');
    afterAll(() => stop(server));

    it('goes from the bootstrap session to a listed execution and a badge', async () => {
      const env = { ...baseEnv(), PORT: '0', COVGATE_DATA_DIR: dataDir() };
      server = await startListening([join(serverDist, 'main.js')], { cwd: workDir, env });
      const admin = await run(
        process.execPath,
        [join(serverDist, 'admin.js'), 'bootstrap', 'acme'],
        {
          cwd: workDir,
          env,
        },
      );
      expect(admin.code, admin.stderr).toBe(0);
      const session = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin.stdout)?.[1];
      expect(session).toMatch(/^cvgs_/);

      const walkthrough = await run('bash', [join(snippets, 'walkthrough.sh')], {
        cwd: workDir,
        env: { ...baseEnv(), COVGATE_URL: server.url, COVGATE_SESSION: session },
      });
      expect(walkthrough.stderr).toBe('');
      expect(walkthrough.code).toBe(0);
      expectWalkthroughOutput(walkthrough.stdout);
      expect(await readFile(join(workDir, 'badge.svg'), 'utf8')).toContain('84%');
    });

    it('gates CI: the ci-gate sample exits 0 on pass and 1 on fail', async () => {
      const admin = await run(
        process.execPath,
        [join(serverDist, 'admin.js'), 'bootstrap', 'acme'],
        {
          cwd: workDir,
          env: { ...baseEnv(), COVGATE_DATA_DIR: dataDir() },
        },
      );
      const session = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin.stdout)?.[1];
      const created = await fetch(`${server?.url}/v1/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ci-gate' }),
      });
      expect(created.status).toBe(201);
      const { secret } = (await created.json()) as { secret: string };
      const gate = (branch: string, coverage: string) =>
        run('bash', [join(snippets, 'ci-gate.sh')], {
          cwd: workDir,
          env: {
            ...baseEnv(),
            COVGATE_URL: server?.url,
            COVGATE_TOKEN: secret,
            REPO: 'api',
            BRANCH: branch,
            COVERAGE: coverage,
          },
        });

      const passed = await gate('main', '90.5');
      expect(passed.stderr).toBe('');
      expect(passed.code).toBe(0);
      expect(JSON.parse(passed.stdout)).toMatchObject({
        repo: 'api',
        branch: 'main',
        outcome: 'pass',
        delta: '0.00',
      });

      const failed = await gate('feature/x', '88');
      expect(failed.code).toBe(1);
      expect(JSON.parse(failed.stdout)).toMatchObject({
        branch: 'feature/x',
        outcome: 'fail',
        delta: '-2.50',
      });
      expect(failed.stderr).toBe('covgate: coverage gate failed for api@feature/x\n');
    });
  });
});
