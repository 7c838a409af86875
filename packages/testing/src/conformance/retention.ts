import type { ExecutionRecord, PartsState, PartUpload, RepositoryKey, Store } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { buildExecution, FIXTURE_TIME, secondsAfter } from '../fixtures.js';
import { givenOrganisation, givenRepo } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/** `size` bytes that stand for stored detail: the store keeps and counts them as they are. */
const blob = (size: number, seed = 0): Uint8Array =>
  Uint8Array.from({ length: size }, (_, index) => (index * 31 + seed) % 256);

const PRUNED_AT = secondsAfter(FIXTURE_TIME, 90 * 86_400);

const COMMIT = 'e'.repeat(40);

const completeParts: PartsState = {
  received: ['integration', 'unit'],
  carried: [],
  carryforward: null,
  rules: null,
  expected: { names: ['integration', 'unit'] },
  expectedSource: 'run',
  closed: false,
  deadline: secondsAfter(FIXTURE_TIME, 3600),
  revision: 2,
  reason: null,
  verdict: 'pass',
};

const upload = (record: ExecutionRecord, name: string, size: number): PartUpload => ({
  executionId: record.id,
  orgId: record.orgId,
  name,
  receivedAt: FIXTURE_TIME,
  coverage: 80,
  lines: blob(size, name.length),
});

/**
 * A repository with four runs a second apart, oldest first: one with a per-file list (10
 * bytes) and line data (20), one with a list only (30), a commit's report merged from two
 * parts (list 5, lines 6, uploads 7 and 8), and one without detail.
 */
async function givenRunsWithDetail(store: Store) {
  const where = await givenRepo(store);
  const at = (seconds: number) => secondsAfter(FIXTURE_TIME, seconds);
  const both = buildExecution({ ...where, createdAt: at(0), fileCount: 1 });
  const listOnly = buildExecution({ ...where, createdAt: at(1), fileCount: 1 });
  const report = buildExecution({
    ...where,
    createdAt: at(2),
    commit: COMMIT,
    fileCount: 1,
    parts: completeParts,
  });
  const bare = buildExecution({ ...where, createdAt: at(3) });
  await store.insertExecution(both, blob(10), [], blob(20));
  await store.insertExecution(listOnly, blob(30));
  await store.insertCommitReport(report, {
    uploads: [upload(report, 'integration', 7), upload(report, 'unit', 8)],
    files: blob(5),
    lines: blob(6),
    deliveries: [],
    claim: null,
  });
  await store.insertExecution(bare);
  return { ...where, both, listOnly, report, bare };
}

/** What a run holds: its list's, its lines' and its uploads' sizes (null when absent). */
async function detailOf(store: Store, record: ExecutionRecord) {
  const files = await store.findExecutionFiles(record.orgId, record.id);
  const lines = await store.findExecutionLines(record.orgId, record.id);
  const uploads = await store.listPartUploads(record.orgId, record.id);
  return {
    files: files?.byteLength ?? null,
    lines: lines?.byteLength ?? null,
    uploads: uploads.map((part) => part.lines.byteLength),
  };
}

/**
 * Conformance tests of `RetentionStore`: the repositories and runs retention walks, and the
 * detail of runs measured and pruned by id while the records stay.
 */
export function describeRetention(store: StoreUnderTest, peer: StoreUnderTest): void {
  describe('retention of runs detail', () => {
    it("lists a repository's runs newest first with whether each holds detail, page by page", async () => {
      const { orgId, repo, both, listOnly, report, bare } = await givenRunsWithDetail(store());

      const runs = await store().listRetentionRuns(orgId, repo, null, 1000);
      expect(runs.map((run) => [run.id, run.detail])).toEqual([
        [bare.id, false],
        [report.id, true],
        [listOnly.id, true],
        [both.id, true],
      ]);
      expect(runs[1]).toEqual({
        id: report.id,
        branch: 'main',
        component: null,
        outcome: 'pass',
        commit: COMMIT,
        createdAt: report.createdAt,
        baselineId: null,
        baseBranch: 'main',
        baseCommit: null,
        detail: true,
      });
      const second = await store().listRetentionRuns(
        orgId,
        repo,
        { createdAt: report.createdAt, id: report.id },
        1,
      );
      expect(second.map((run) => run.id)).toEqual([listOnly.id]);
      expect(
        await store().listRetentionRuns(await givenOrganisation(store()), repo, null, 10),
      ).toEqual([]);
    });

    it("lists every organisation's repositories in order, after a given one", async () => {
      const orgId = await givenOrganisation(store());
      for (const repo of ['b-repo', 'a-repo', 'c-repo']) {
        await store().insertExecution(buildExecution({ orgId, repo }));
      }

      const all: RepositoryKey[] = [];
      let after: RepositoryKey | null = null;
      for (;;) {
        const page = await store().listRepositoryKeys(after, 2);
        all.push(...page);
        if (page.length < 2) break;
        after = page.at(-1) ?? null;
      }
      expect(all.filter((key) => key.orgId === orgId)).toEqual([
        { orgId, repo: 'a-repo' },
        { orgId, repo: 'b-repo' },
        { orgId, repo: 'c-repo' },
      ]);
      expect(await store().listRepositoryKeys({ orgId, repo: 'a-repo' }, 2)).toEqual(
        expect.arrayContaining([{ orgId, repo: 'b-repo' }]),
      );
    });

    it('measures the runs, rows and bytes of detail, deleting nothing', async () => {
      const { orgId, both, listOnly, report, bare } = await givenRunsWithDetail(store());
      const ids = [both.id, listOnly.id, report.id, bare.id, 'exe_unknown'];

      expect(await store().measureRunDetail(orgId, ids)).toEqual({ runs: 3, rows: 7, bytes: 86 });
      expect(await store().measureRunDetail(orgId, [])).toEqual({ runs: 0, rows: 0, bytes: 0 });
      expect(await store().measureRunDetail(await givenOrganisation(store()), ids)).toEqual({
        runs: 0,
        rows: 0,
        bytes: 0,
      });
      expect(await detailOf(store(), report)).toEqual({ files: 5, lines: 6, uploads: [7, 8] });
      expect(await store().findDetailPrunedAt(orgId, report.id)).toBeNull();
    });

    it('prunes the list, lines and uploads of the runs named, keeping their records', async () => {
      const { orgId, repo, both, listOnly, report, bare } = await givenRunsWithDetail(store());

      expect(await store().pruneRunDetail(orgId, [both.id, report.id, bare.id], PRUNED_AT)).toEqual(
        { runs: 2, rows: 6, bytes: 56 },
      );

      const none = { files: null, lines: null, uploads: [] };
      expect(await detailOf(store(), both)).toEqual(none);
      expect(await detailOf(store(), report)).toEqual(none);
      expect(await detailOf(store(), listOnly)).toEqual({ files: 30, lines: null, uploads: [] });
      expect(await store().findExecution(orgId, report.id)).toEqual(report);
      expect(await store().countExecutions(orgId, repo)).toBe(4);
      expect(await store().findDetailPrunedAt(orgId, both.id)).toEqual(PRUNED_AT);
      expect(await store().findDetailPrunedAt(orgId, report.id)).toEqual(PRUNED_AT);
      // A run without detail had nothing pruned; a run of another organisation reads as unknown.
      expect(await store().findDetailPrunedAt(orgId, bare.id)).toBeNull();
      expect(
        await store().findDetailPrunedAt(await givenOrganisation(store()), both.id),
      ).toBeNull();
      const runs = await store().listRetentionRuns(orgId, repo, null, 10);
      expect(runs.map((run) => run.detail)).toEqual([false, false, true, false]);
    });

    it("prunes nothing of another organisation's runs, and a second prune finds nothing", async () => {
      const { orgId, both } = await givenRunsWithDetail(store());
      const other = await givenOrganisation(store());

      expect(await store().pruneRunDetail(other, [both.id], PRUNED_AT)).toEqual({
        runs: 0,
        rows: 0,
        bytes: 0,
      });
      expect(await detailOf(store(), both)).toEqual({ files: 10, lines: 20, uploads: [] });
      await store().pruneRunDetail(orgId, [both.id], PRUNED_AT);
      const later = secondsAfter(PRUNED_AT, 86_400);

      expect(await store().pruneRunDetail(orgId, [both.id], later)).toEqual({
        runs: 0,
        rows: 0,
        bytes: 0,
      });
      expect(await store().findDetailPrunedAt(orgId, both.id)).toEqual(PRUNED_AT);
    });

    it('prunes the same runs from two connections at once without failing', async () => {
      const { orgId, both, listOnly, report } = await givenRunsWithDetail(store());
      const ids = [both.id, listOnly.id, report.id];

      const results = await Promise.all([
        store().pruneRunDetail(orgId, ids, PRUNED_AT),
        peer().pruneRunDetail(orgId, [...ids].reverse(), PRUNED_AT),
      ]);

      for (const result of results) expect(result.runs).toBeLessThanOrEqual(3);
      expect(await store().measureRunDetail(orgId, ids)).toEqual({ runs: 0, rows: 0, bytes: 0 });
      for (const record of [both, listOnly, report]) {
        expect(await store().findDetailPrunedAt(orgId, record.id)).toEqual(PRUNED_AT);
      }
    });
  });
}
