import type { ExecutionRecord, PartsState, PartUpload, Store } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import {
  buildExecution,
  buildIdempotencyClaim,
  FIXTURE_TIME,
  newPrefixedId,
  secondsAfter,
} from '../fixtures.js';
import { givenRepo } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

const COMMIT = 'c'.repeat(40);

/** Parts at `revision`, waiting for `integration` until an hour after the fixture time. */
function parts(revision: number, overrides: Partial<PartsState> = {}): PartsState {
  return {
    received: ['unit'],
    carried: [],
    carryforward: null,
    rules: null,
    expected: { names: ['integration', 'unit'] },
    expectedSource: 'run',
    closed: false,
    deadline: secondsAfter(FIXTURE_TIME, 3600),
    revision,
    reason: null,
    verdict: 'pass',
    ...overrides,
  };
}

/** A report's first record in a fresh repository. */
async function givenReport(
  store: Store,
  overrides: Partial<ExecutionRecord> = {},
): Promise<ExecutionRecord> {
  const where = await givenRepo(store);
  return buildExecution({
    ...where,
    commit: COMMIT,
    outcome: 'pending',
    parts: parts(1),
    fileCount: 1,
    ...overrides,
  });
}

const upload = (record: ExecutionRecord, name: string, byte: number): PartUpload => ({
  executionId: record.id,
  orgId: record.orgId,
  name,
  receivedAt: FIXTURE_TIME,
  coverage: 81.25,
  lines: Uint8Array.from([byte, 1, 2, 3]),
});

const write = (
  overrides: Partial<Parameters<Store['insertCommitReport']>[1]> = {},
): Parameters<Store['insertCommitReport']>[1] => ({
  uploads: [],
  files: null,
  lines: null,
  deliveries: [],
  claim: null,
  ...overrides,
});

const keyOf = (record: ExecutionRecord) => ({
  orgId: record.orgId,
  repo: record.repo,
  commit: COMMIT,
  component: record.component,
});

/** Conformance tests of `CommitReportStore`: a commit's report, its parts, overdue reports. */
export function describeCommitReports(store: StoreUnderTest): void {
  describe('commit reports', () => {
    it('find the report of a commit with its parts, and its uploads by name', async () => {
      const record = await givenReport(store());
      await store().insertCommitReport(
        record,
        write({
          uploads: [upload(record, 'unit', 9)],
          files: Uint8Array.from([7, 7]),
          lines: Uint8Array.from([8]),
        }),
      );
      expect(await store().findExecutionLines(record.orgId, record.id)).toEqual(
        Uint8Array.from([8]),
      );

      expect(await store().findCommitReport(keyOf(record))).toEqual(record);
      expect(await store().findExecution(record.orgId, record.id)).toEqual(record);
      expect(await store().findExecutionFiles(record.orgId, record.id)).toEqual(
        Uint8Array.from([7, 7]),
      );
      expect(await store().listPartUploads(record.orgId, record.id)).toEqual([
        upload(record, 'unit', 9),
      ]);
      expect(await store().countExecutions(record.orgId, record.repo)).toBe(1);
      // Another component, commit or organisation has none.
      expect(await store().findCommitReport({ ...keyOf(record), component: 'api' })).toBeNull();
      expect(
        await store().findCommitReport({ ...keyOf(record), commit: 'd'.repeat(40) }),
      ).toBeNull();
      expect(await store().listPartUploads(newPrefixedId('org_'), record.id)).toEqual([]);
    });

    it('store the parts carried into a report with their uploads, in one write', async () => {
      const record = await givenReport(store());
      await store().insertCommitReport(record, write({ uploads: [upload(record, 'unit', 1)] }));
      const carried = {
        ...upload(record, 'integration', 2),
        receivedAt: secondsAfter(FIXTURE_TIME, -172_800),
      };
      const judged: ExecutionRecord = {
        ...record,
        outcome: 'pass',
        parts: parts(2, {
          closed: true,
          carried: [
            {
              part: 'integration',
              fromCommit: 'a'.repeat(40),
              fromRun: newPrefixedId('exe_'),
              receivedAt: carried.receivedAt,
              ageSeconds: 172_800,
            },
          ],
          carryforward: { names: ['integration'] },
          rules: {
            warnThreshold: 0.5,
            failThreshold: 1,
            projectTarget: 70,
            projectInformational: false,
            patchInformational: true,
          },
        }),
      };
      expect(
        await store().updateCommitReport(
          judged,
          1,
          write({ uploads: [carried, upload(record, 'e2e', 3)] }),
        ),
      ).toBe(true);
      expect(await store().findCommitReport(keyOf(record))).toEqual(judged);
      expect(await store().listPartUploads(record.orgId, record.id)).toEqual([
        upload(record, 'e2e', 3),
        carried,
        upload(record, 'unit', 1),
      ]);
    });

    it('keep one report per commit and component: a second first part is a conflict', async () => {
      const record = await givenReport(store(), { component: 'api' });
      await store().insertCommitReport(record, write());
      const twin = { ...record, id: newPrefixedId('exe_') };
      await expect(store().insertCommitReport(twin, write())).rejects.toMatchObject({
        name: 'StoreConflictError',
      });
      expect(await store().findExecution(record.orgId, twin.id)).toBeNull();
      expect(await store().countExecutions(record.orgId, record.repo)).toBe(1);
      // The whole repository's report of the commit is another one.
      const whole = { ...record, id: newPrefixedId('exe_'), component: null };
      await store().insertCommitReport(whole, write());
      expect(await store().findCommitReport(keyOf(whole))).toEqual(whole);
    });

    it('update a report only over the revision it read, replacing an upload of the same name', async () => {
      const record = await givenReport(store());
      await store().insertCommitReport(record, write({ uploads: [upload(record, 'unit', 1)] }));

      const merged: ExecutionRecord = {
        ...record,
        outcome: 'warn',
        coverage: 90.5,
        delta: '-0.75',
        fileCount: 2,
        parts: parts(2, { received: ['integration', 'unit'], verdict: 'warn' }),
      };
      expect(
        await store().updateCommitReport(
          merged,
          1,
          write({
            uploads: [upload(record, 'integration', 2)],
            files: Uint8Array.from([3]),
            lines: Uint8Array.from([4, 4]),
          }),
        ),
      ).toBe(true);
      expect(await store().findExecutionLines(record.orgId, record.id)).toEqual(
        Uint8Array.from([4, 4]),
      );
      expect(await store().findCommitReport(keyOf(record))).toEqual(merged);
      expect(await store().findExecutionFiles(record.orgId, record.id)).toEqual(
        Uint8Array.from([3]),
      );

      // A writer that read revision 1 lost: nothing of its write is stored.
      const stale = { ...merged, coverage: 10, parts: parts(2) };
      expect(
        await store().updateCommitReport(stale, 1, write({ uploads: [upload(record, 'unit', 5)] })),
      ).toBe(false);
      expect(await store().findExecution(record.orgId, record.id)).toEqual(merged);

      const rerun = { ...merged, parts: parts(3, { received: ['integration', 'unit'] }) };
      expect(
        await store().updateCommitReport(rerun, 2, write({ uploads: [upload(record, 'unit', 6)] })),
      ).toBe(true);
      expect(await store().listPartUploads(record.orgId, record.id)).toEqual([
        upload(record, 'integration', 2),
        upload(record, 'unit', 6),
      ]);
      expect(await store().countExecutions(record.orgId, record.repo)).toBe(1);
    });

    it('replace the statuses not yet sent when a report is written again', async () => {
      const record = await givenReport(store());
      const delivery = (payload: string) => ({
        id: newPrefixedId('dlv_'),
        kind: 'status_project' as const,
        payload,
      });
      await store().insertCommitReport(record, write({ deliveries: [delivery('"pending"')] }));
      const next = { ...record, parts: parts(2) };
      await store().updateCommitReport(next, 1, write({ deliveries: [delivery('"success"')] }));
      const stored = await store().listRunDeliveries(record.orgId, record.id);
      expect(stored.map((row) => row.payload)).toEqual(['"success"']);
    });

    it('store an idempotency key with a report, which then answers the report as it is', async () => {
      const record = await givenReport(store());
      const claim = buildIdempotencyClaim();
      await store().insertCommitReport(record, write({ claim }));
      const next = { ...record, coverage: 42, parts: parts(2) };
      await store().updateCommitReport(next, 1, write());
      expect(await store().findIdempotentExecution(record.orgId, claim.key, FIXTURE_TIME)).toEqual({
        requestDigest: claim.requestDigest,
        record: next,
      });
      // A live key cannot be taken by another write.
      await expect(
        store().updateCommitReport({ ...next, parts: parts(3) }, 2, write({ claim })),
      ).rejects.toMatchObject({ name: 'StoreConflictError' });
    });

    it('list the pending reports past their deadline, earliest deadline first', async () => {
      const late = await givenReport(store(), {
        parts: parts(1, { deadline: secondsAfter(FIXTURE_TIME, 60) }),
      });
      const later = await givenReport(store(), {
        parts: parts(1, { deadline: secondsAfter(FIXTURE_TIME, 120) }),
      });
      const notYet = await givenReport(store(), {
        parts: parts(1, { deadline: secondsAfter(FIXTURE_TIME, 7200) }),
      });
      const judged = await givenReport(store(), {
        outcome: 'fail',
        parts: parts(1, { deadline: secondsAfter(FIXTURE_TIME, 30) }),
      });
      for (const record of [later, notYet, judged, late]) {
        await store().insertCommitReport(record, write());
      }
      const at = secondsAfter(FIXTURE_TIME, 3600);
      const overdue = await store().listOverdueReports(at, 10);
      const ours = new Set([late.id, later.id, notYet.id, judged.id]);
      expect(overdue.filter((record) => ours.has(record.id))).toEqual([late, later]);
      expect((await store().listOverdueReports(at, 1)).length).toBe(1);
    });

    it('never take a pending report as a baseline', async () => {
      const record = await givenReport(store(), { branch: 'main' });
      await store().insertCommitReport(record, write());
      expect(await store().findBaseline(record.orgId, record.repo, 'main')).toBeNull();
      expect(await store().findLatestExecution(record.orgId, record.repo, 'main')).toEqual(record);
    });
  });
}
