import { createMemoryStore, pruneRunDetail, type Store } from '@covgate/core';
import { buildExecution, buildOrganisation } from '@covgate/testing';
import { beforeEach, describe, expect, it } from 'vitest';

const NOW = new Date('2026-06-01T00:00:00Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);
const policy = { days: 30, runsPerBranch: null };

/** Two repositories of two organisations, each with an old run, a recent one and the latest. */
async function givenTwoRepositories(store: Store) {
  const runs = [];
  for (const repo of ['api', 'web']) {
    const org = buildOrganisation();
    await store.createOrganisation(org);
    for (const age of [90, 60, 10]) {
      const record = buildExecution({ orgId: org.id, repo, createdAt: daysAgo(age), fileCount: 1 });
      await store.insertExecution(record, new Uint8Array(100), [], new Uint8Array(1000));
      runs.push(record);
    }
  }
  return runs;
}

describe('pruneRunDetail', () => {
  let store: Store;
  beforeEach(() => {
    store = createMemoryStore();
  });

  it('prunes the old runs of every repository, in batches, and reports what went', async () => {
    const runs = await givenTwoRepositories(store);

    const report = await pruneRunDetail(store, { policy, now: NOW, batchSize: 1 });

    expect(report).toEqual({ repositories: 2, runs: 4, rows: 8, bytes: 4400, dryRun: false });
    const left = await Promise.all(
      runs.map(async (run) => (await store.findExecutionLines(run.orgId, run.id)) !== null),
    );
    expect(left).toEqual([false, false, true, false, false, true]);
    expect(await store.findDetailPrunedAt(runs[0]!.orgId, runs[0]!.id)).toEqual(NOW);
  });

  it('a dry run reports the same and deletes nothing', async () => {
    const runs = await givenTwoRepositories(store);

    const report = await pruneRunDetail(store, { policy, now: NOW, dryRun: true });

    expect(report).toEqual({ repositories: 2, runs: 4, rows: 8, bytes: 4400, dryRun: true });
    for (const run of runs) {
      expect(await store.findExecutionFiles(run.orgId, run.id)).not.toBeNull();
      expect(await store.findDetailPrunedAt(run.orgId, run.id)).toBeNull();
    }
    expect((await pruneRunDetail(store, { policy, now: NOW })).runs).toBe(4);
  });

  it('reads nothing and prunes nothing with retention off', async () => {
    await givenTwoRepositories(store);
    const off = { days: null, runsPerBranch: null };

    expect(await pruneRunDetail(store, { policy: off, now: NOW })).toEqual({
      repositories: 0,
      runs: 0,
      rows: 0,
      bytes: 0,
      dryRun: false,
    });
  });

  it('two passes at once both finish, and between them prune each run once', async () => {
    await givenTwoRepositories(store);

    const [first, second] = await Promise.all([
      pruneRunDetail(store, { policy, now: NOW, batchSize: 1 }),
      pruneRunDetail(store, { policy, now: NOW, batchSize: 1 }),
    ]);

    expect(first.runs + second.runs).toBe(4);
    expect((await pruneRunDetail(store, { policy, now: NOW, dryRun: true })).runs).toBe(0);
  });

  it('stops between batches when its signal aborts', async () => {
    await givenTwoRepositories(store);
    const controller = new AbortController();
    controller.abort();

    expect(
      (await pruneRunDetail(store, { policy, now: NOW, signal: controller.signal })).runs,
    ).toBe(0);
    expect((await pruneRunDetail(store, { policy, now: NOW, dryRun: true })).runs).toBe(4);
  });
});
