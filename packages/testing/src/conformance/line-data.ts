import { describe, expect, it } from 'vitest';
import { buildExecution, buildIdempotencyClaim } from '../fixtures.js';
import { givenOrganisation, givenRepo } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/** Bytes as text, for a comparison that names the difference and stays fast on a megabyte. */
const base64 = (bytes: Uint8Array | null): string | null =>
  bytes === null ? null : Buffer.from(bytes).toString('base64');

/** Bytes that stand for a run's stored line data: the store keeps them as they are. */
const linesBlob = (size: number, seed = 0): Uint8Array =>
  Uint8Array.from({ length: size }, (_, index) => (index * 37 + 11 + seed) % 256);

/**
 * Conformance tests of a run's line data (`insertExecution`'s and `insertKeyedExecution`'s
 * `lines`, `findExecutionLines`): kept byte for byte with the run, in its transaction, for
 * its organisation only.
 */
export function describeLineData(store: StoreUnderTest): void {
  describe('line data of runs', () => {
    it('keeps the line data of a record byte for byte, for its organisation only', async () => {
      const where = await givenRepo(store());
      const withLines = buildExecution({ ...where, fileCount: 2 });
      const without = buildExecution({ ...where });
      // Beyond a MySQL BLOB's 64 KiB: a 50 000-file run's line data is about a megabyte.
      const lines = linesBlob(1_200_000);
      const files = linesBlob(100, 1);
      await store().insertExecution(withLines, files, [], lines);
      await store().insertExecution(without, files);

      expect(base64(await store().findExecutionLines(where.orgId, withLines.id))).toBe(
        base64(lines),
      );
      expect(base64(await store().findExecutionFiles(where.orgId, withLines.id))).toBe(
        base64(files),
      );
      expect(await store().findExecutionLines(where.orgId, without.id)).toBeNull();
      expect(await store().findExecutionLines(where.orgId, `${withLines.id}x`)).toBeNull();
      expect(
        await store().findExecutionLines(await givenOrganisation(store()), withLines.id),
      ).toBeNull();
    });

    it('keeps line data sent without a per-file list', async () => {
      const where = await givenRepo(store());
      const record = buildExecution({ ...where });
      const lines = linesBlob(40);
      await store().insertExecution(record, null, undefined, lines);

      expect(base64(await store().findExecutionLines(where.orgId, record.id))).toBe(base64(lines));
      expect(await store().findExecutionFiles(where.orgId, record.id)).toBeNull();
    });

    it('keeps the line data of a record stored with an idempotency key, once', async () => {
      const where = await givenRepo(store());
      const record = buildExecution({ ...where, fileCount: 1 });
      const again = buildExecution({ ...where, fileCount: 1 });
      const claim = buildIdempotencyClaim();
      const lines = linesBlob(64);
      await store().insertKeyedExecution(record, claim, linesBlob(8, 2), [], lines);
      const second = await store().insertKeyedExecution(
        again,
        claim,
        linesBlob(8, 2),
        [],
        linesBlob(64, 3),
      );

      expect(second.inserted).toBe(false);
      expect(base64(await store().findExecutionLines(where.orgId, record.id))).toBe(base64(lines));
      expect(await store().findExecutionLines(where.orgId, again.id)).toBeNull();
    });

    it('stores no line data when the id already exists', async () => {
      const where = await givenRepo(store());
      const record = buildExecution({ ...where });
      await store().insertExecution(record);
      await expect(
        store().insertExecution({ ...record }, null, [], linesBlob(8)),
      ).rejects.toThrow();

      expect(await store().findExecutionLines(where.orgId, record.id)).toBeNull();
    });
  });
}
