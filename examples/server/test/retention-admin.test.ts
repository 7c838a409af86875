import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Store } from '@covgate/core';
import { createSqliteStore } from '@covgate/sqlite';
import { DIST, isServerBuilt } from '@covgate/test-support/built-server';
import { buildExecution, buildOrganisation } from '@covgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../test/support/processes.js';

// `covgate-admin prune` on the embedded store: what a dry run prints and keeps, what a prune
// deletes, two at once, and a refusal without a retention setting.

const built = isServerBuilt() && existsSync(join(DIST, 'admin.js'));
if (!built) console.warn('[covgate] covgate-admin prune SKIPPED: run `pnpm build` first');

const DAY = 86_400_000;

describe.skipIf(!built && process.env.CI !== '1')('covgate-admin prune', () => {
  let parent: string;
  let env: NodeJS.ProcessEnv;
  let dbUrl: string;
  const admin = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    run(process.execPath, [join(DIST, 'admin.js'), ...args], {
      env: { ...env, ...extra },
      timeoutMs: 60_000,
    });
  const withStore = async <T>(use: (store: Store) => Promise<T>): Promise<T> => {
    const store = await createSqliteStore({ url: dbUrl });
    try {
      return await use(store);
    } finally {
      await store.close();
    }
  };

  beforeAll(async () => {
    parent = await mkdtemp(join(tmpdir(), 'covgate-prune-'));
    const dataDir = join(parent, 'data');
    env = { PATH: process.env.PATH, NODE_ENV: 'test', COVGATE_DATA_DIR: dataDir };
    expect((await admin(['migrate', 'up'])).code).toBe(0);
    dbUrl = pathToFileURL(join(dataDir, 'covgate.db')).href;
    // Two repositories, each with runs 120, 60 and 1 day old, every one with a list (1 KiB)
    // and line data (4 KiB): the two older runs of each go at 30 days.
    await withStore(async (store) => {
      const now = Date.now();
      for (const repo of ['api', 'web']) {
        const org = buildOrganisation();
        await store.createOrganisation(org);
        for (const age of [120, 60, 1]) {
          const createdAt = new Date(Math.floor((now - age * DAY) / 1000) * 1000);
          const record = buildExecution({ orgId: org.id, repo, createdAt, fileCount: 1 });
          await store.insertExecution(record, new Uint8Array(1024), [], new Uint8Array(4096));
        }
      }
    });
  });
  afterAll(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it('refuses to run without a retention setting, exit 2, naming the settings', async () => {
    const result = await admin(['prune', '--dry-run']);
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'covgate-admin: retention is off: set RETENTION_DAYS or RETENTION_RUNS_PER_BRANCH\n',
    });
  });

  it('--dry-run prints what would go and deletes nothing', async () => {
    const result = await admin(['prune', '--dry-run'], { RETENTION_DAYS: '30' });
    expect(result).toMatchObject({
      code: 0,
      stdout: 'would prune the detail of 4 runs: 8 rows, 20480 bytes, in 2 repositories\n',
    });
    const json = await admin(['prune', '--dry-run', '--json'], { RETENTION_DAYS: '30' });
    expect(JSON.parse(json.stdout)).toEqual({
      repositories: 2,
      runs: 4,
      rows: 8,
      bytes: 20_480,
      dryRun: true,
    });
    const again = await admin(['prune', '--dry-run', '--json'], { RETENTION_DAYS: '30' });
    expect(JSON.parse(again.stdout).runs).toBe(4);
  });

  it('two prunes at once both exit 0 and together delete each run once', async () => {
    const results = await Promise.all([
      admin(['prune', '--json'], { RETENTION_DAYS: '30' }),
      admin(['prune', '--json'], { RETENTION_DAYS: '30' }),
    ]);

    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const runs = results.map((result) => (JSON.parse(result.stdout) as { runs: number }).runs);
    expect(runs[0]! + runs[1]!).toBeGreaterThanOrEqual(4);
    const after = await admin(['prune', '--dry-run'], { RETENTION_DAYS: '30' });
    expect(after.stdout).toBe(
      'would prune the detail of 0 runs: 0 rows, 0 bytes, in 2 repositories\n',
    );
  });
});
