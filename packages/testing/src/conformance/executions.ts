import { type ExecutionRecord, type Outcome, type Store, StoreConflictError } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import {
  buildExecution,
  buildIdempotencyClaim,
  FIXTURE_TIME,
  newPrefixedId,
  randomSuffix,
  secondsAfter,
} from '../fixtures.js';
import { givenOrganisation, givenRepo } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/** The expected newest-first order of records: `createdAt` desc, then `id` desc. */
const newestFirst = (records: ExecutionRecord[]): ExecutionRecord[] =>
  [...records].sort(
    (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1),
  );

/** The record of one branch a lookup answers: `findBaseline` or `findLatestExecution`. */
type BranchLookup = (
  store: Store,
  orgId: string,
  repo: string,
  branch: string,
) => Promise<ExecutionRecord | null>;

/** Conformance tests of `ExecutionStore`. */
export function describeExecutions(store: StoreUnderTest): void {
  /** Inserts a record of the repository named `repo` of another, fresh organisation. */
  const insertInAnotherOrganisation = async (
    repo: string,
    createdAt = new Date(FIXTURE_TIME),
  ): Promise<void> => {
    await store().insertExecution(
      buildExecution({ orgId: await givenOrganisation(store()), repo, createdAt }),
    );
  };

  /**
   * Inserts `record`, then, 10 s later, a record of its repository for each of `elsewhere` and
   * one of the same repository name in another organisation.
   */
  const insertWithLaterOthers = async (
    record: ExecutionRecord,
    elsewhere: Partial<ExecutionRecord>[],
  ): Promise<void> => {
    const later = secondsAfter(record.createdAt, 10);
    await store().insertExecution(record);
    for (const overrides of elsewhere) {
      await store().insertExecution(
        buildExecution({ orgId: record.orgId, repo: record.repo, ...overrides, createdAt: later }),
      );
    }
    await insertInAnotherOrganisation(record.repo, later);
  };

  /**
   * Inserts one record of a fresh repository per value of `field`, one second apart in order,
   * and returns them with the repository's list as the store answers it.
   */
  const insertEachValue = async <K extends keyof ExecutionRecord>(
    field: K,
    values: ExecutionRecord[K][],
  ): Promise<{ records: ExecutionRecord[]; listed: ExecutionRecord[] }> => {
    const where = await givenRepo(store());
    const records = values.map((value, index) =>
      buildExecution({
        ...where,
        ...({ [field]: value } as Partial<ExecutionRecord>),
        createdAt: secondsAfter(FIXTURE_TIME, index),
      }),
    );
    for (const record of records) await store().insertExecution(record);
    return { records, listed: await store().listExecutions({ ...where, limit: 10 }) };
  };

  /**
   * The tests both lookups of a branch's record pass: ties on the creation time broken by id,
   * and null for an unknown repository or branch. `outcome` is one the lookup answers.
   */
  const itFindsOneRecordOfTheBranch = (find: BranchLookup, outcome: Outcome): void => {
    it('breaks a tie on creation time by id, highest first', async () => {
      const where = await givenRepo(store());
      const [low, high] = [1, 2].map(() => buildExecution({ ...where, outcome }));
      await store().insertExecution(high!);
      await store().insertExecution(low!);

      expect(await find(store(), where.orgId, where.repo, 'main')).toEqual(high);
    });

    it('is null for an unknown repository or branch', async () => {
      const where = await givenRepo(store());
      await store().insertExecution(buildExecution({ ...where, branch: 'main' }));

      expect(await find(store(), where.orgId, where.repo, 'other')).toBeNull();
      expect(await find(store(), where.orgId, `${where.repo}-none`, 'main')).toBeNull();
    });
  };

  describe('executions', () => {
    it('lists inserted executions newest first with every field intact', async () => {
      const where = await givenRepo(store());
      const older = buildExecution({ ...where, createdAt: FIXTURE_TIME, delta: '-0.40' });
      const newer = buildExecution({
        ...where,
        branch: 'feature/ünïcode',
        outcome: 'warn',
        delta: '+1.25',
        coverage: 84.13,
        createdAt: secondsAfter(FIXTURE_TIME, 1),
      });
      await store().insertExecution(older);
      await store().insertExecution(newer);

      expect(await store().listExecutions({ ...where, limit: 10 })).toEqual([newer, older]);
    });

    it('orders by creation time, not by insertion order', async () => {
      const where = await givenRepo(store());
      const records = [3, 1, 4, 0, 2].map((offset) =>
        buildExecution({ ...where, createdAt: secondsAfter(FIXTURE_TIME, offset) }),
      );
      for (const record of records) await store().insertExecution(record);

      expect(await store().listExecutions({ ...where, limit: 10 })).toEqual(newestFirst(records));
    });

    it('breaks a tie on creation time by id, highest first', async () => {
      const where = await givenRepo(store());
      const [low, middle, high] = [1, 2, 3].map(() => buildExecution({ ...where }));
      for (const record of [middle!, high!, low!]) await store().insertExecution(record);

      expect(await store().listExecutions({ ...where, limit: 10 })).toEqual([high, middle, low]);
    });

    it('returns at most limit records, the newest ones', async () => {
      const where = await givenRepo(store());
      const records = [0, 1, 2, 3, 4].map((offset) =>
        buildExecution({ ...where, createdAt: secondsAfter(FIXTURE_TIME, offset) }),
      );
      for (const record of records) await store().insertExecution(record);

      expect(await store().listExecutions({ ...where, limit: 2 })).toEqual([
        records[4],
        records[3],
      ]);
      expect(await store().listExecutions({ ...where, limit: 1 })).toEqual([records[4]]);
      expect(await store().listExecutions({ ...where, limit: 100 })).toHaveLength(5);
    });

    it('pages with the cursor through every record exactly once, in order', async () => {
      const where = await givenRepo(store());
      // Three records per second, so pages break inside runs of equal timestamps.
      const records = Array.from({ length: 25 }, (_, index) =>
        buildExecution({ ...where, createdAt: secondsAfter(FIXTURE_TIME, Math.floor(index / 3)) }),
      );
      for (const record of [...records].reverse()) await store().insertExecution(record);

      const seen: ExecutionRecord[] = [];
      let page = await store().listExecutions({ ...where, limit: 4 });
      // Bounded, so a cursor that repeats its own record fails instead of looping forever.
      for (let pages = 0; page.length > 0 && pages < 10; pages += 1) {
        expect(page.length).toBeLessThanOrEqual(4);
        seen.push(...page);
        const last = page[page.length - 1]!;
        page = await store().listExecutions({
          ...where,
          limit: 4,
          after: { createdAt: last.createdAt, id: last.id },
        });
      }

      expect(page).toEqual([]);
      expect(seen).toEqual(newestFirst(records));
      expect(new Set(seen.map((record) => record.id)).size).toBe(25);
    });

    it('continues strictly after the cursor, excluding the cursor record itself', async () => {
      const where = await givenRepo(store());
      const [a, b, c] = [1, 2, 3].map(() => buildExecution({ ...where }));
      for (const record of [a!, b!, c!]) await store().insertExecution(record);

      expect(
        await store().listExecutions({
          ...where,
          limit: 10,
          after: { createdAt: b!.createdAt, id: b!.id },
        }),
      ).toEqual([a]);
      expect(
        await store().listExecutions({
          ...where,
          limit: 10,
          after: { createdAt: a!.createdAt, id: a!.id },
        }),
      ).toEqual([]);
    });

    it('accepts a cursor that matches no stored record', async () => {
      const where = await givenRepo(store());
      const older = buildExecution({ ...where, createdAt: FIXTURE_TIME });
      const newer = buildExecution({ ...where, createdAt: secondsAfter(FIXTURE_TIME, 10) });
      await store().insertExecution(older);
      await store().insertExecution(newer);

      const between = { createdAt: secondsAfter(FIXTURE_TIME, 5), id: newPrefixedId('exe_') };
      const sameSecondLowerId = { createdAt: older.createdAt, id: 'exe_0' };
      const sameSecondHigherId = { createdAt: older.createdAt, id: 'exe_z' };

      const page = (after: { createdAt: Date; id: string }) =>
        store().listExecutions({ ...where, limit: 10, after });
      expect(await page(between)).toEqual([older]);
      expect(await page(sameSecondHigherId)).toEqual([older]);
      expect(await page(sameSecondLowerId)).toEqual([]);
    });

    it("does not list or count another repository's or organisation's records", async () => {
      const where = await givenRepo(store());
      const mine = buildExecution({ ...where });
      await store().insertExecution(mine);
      await store().insertExecution(
        buildExecution({ orgId: where.orgId, repo: `${where.repo}-2` }),
      );
      await insertInAnotherOrganisation(where.repo);

      expect(await store().listExecutions({ ...where, limit: 10 })).toEqual([mine]);
      expect(await store().countExecutions(where.orgId, where.repo)).toBe(1);
    });

    it('treats repository names as case-sensitive (Repo is not repo)', async () => {
      const orgId = await givenOrganisation(store());
      const name = `repo-${randomSuffix()}`;
      const capitalised = `R${name.slice(1)}`;
      const lower = buildExecution({ orgId, repo: name });
      const upper = buildExecution({ orgId, repo: capitalised });
      await store().insertExecution(lower);
      await store().insertExecution(upper);

      expect(await store().listExecutions({ orgId, repo: name, limit: 10 })).toEqual([lower]);
      expect(await store().listExecutions({ orgId, repo: capitalised, limit: 10 })).toEqual([
        upper,
      ]);
      expect(await store().countExecutions(orgId, name)).toBe(1);
      expect(await store().countExecutions(orgId, name.toUpperCase())).toBe(0);
    });

    it('lists nothing and counts 0 for an unknown repository', async () => {
      const where = await givenRepo(store());

      expect(await store().listExecutions({ ...where, limit: 10 })).toEqual([]);
      expect(await store().countExecutions(where.orgId, where.repo)).toBe(0);
    });

    it('counts every record of the repository, independent of any limit', async () => {
      const where = await givenRepo(store());
      for (let index = 0; index < 7; index += 1) {
        await store().insertExecution(buildExecution({ ...where }));
      }

      expect(await store().countExecutions(where.orgId, where.repo)).toBe(7);
      expect(await store().listExecutions({ ...where, limit: 3 })).toHaveLength(3);
    });

    it('rejects a second execution with the same id and does not count it', async () => {
      const first = buildExecution(await givenRepo(store()));
      await store().insertExecution(first);
      const second = buildExecution({ id: first.id, orgId: first.orgId, repo: first.repo });

      await expect(store().insertExecution(second)).rejects.toBeInstanceOf(StoreConflictError);

      expect(await store().countExecutions(first.orgId, first.repo)).toBe(1);
      expect(await store().listExecutions({ ...first, limit: 10 })).toEqual([first]);
    });

    it('round-trips coverage values with two decimals, including 0 and 100', async () => {
      const values = [84.13, 0, 100, 0.01, 99.99, 50.5];

      const { listed } = await insertEachValue('coverage', values);

      expect(listed.map((record) => record.coverage)).toEqual([...values].reverse());
    });

    it('round-trips every delta shape as the exact string', async () => {
      const deltas = ['+1.25', '-0.40', '0.00', '+100.00', '-100.00'];

      const { listed } = await insertEachValue('delta', deltas);

      expect(listed.map((record) => record.delta)).toEqual([...deltas].reverse());
    });

    it('round-trips the commit: lowercase hex up to 64 characters, or null', async () => {
      const commits = [null, 'abcdef0', 'f'.repeat(40), '0123456789abcdef'.repeat(4)];

      const { records, listed } = await insertEachValue('commit', commits);

      expect(listed).toEqual(newestFirst(records));
    });

    it('keeps the baseline copy of a record, or that it had none, or that it is unknown', async () => {
      const where = await givenRepo(store());
      const baseline = buildExecution({ ...where, branch: 'release-9', coverage: 64.99 });
      const compared = buildExecution({
        ...where,
        branch: 'feature',
        outcome: 'fail',
        delta: '-1.62',
        coverage: 63.37,
        createdAt: secondsAfter(FIXTURE_TIME, 1),
        baseBranch: 'release-9/ünïcode',
        baselineId: baseline.id,
        baselineCoverage: 64.99,
        baselineCommit: '0123456789abcdef'.repeat(4),
        baselineCreatedAt: FIXTURE_TIME,
      });
      const none = buildExecution({
        ...where,
        createdAt: secondsAfter(FIXTURE_TIME, 2),
        baseBranch: 'release-9',
      });
      const unknown = buildExecution({
        ...where,
        createdAt: secondsAfter(FIXTURE_TIME, 3),
        baseBranch: null,
      });
      for (const record of [baseline, compared, none, unknown]) {
        await store().insertExecution(record);
      }

      expect(await store().listExecutions({ ...where, limit: 10 })).toEqual([
        unknown,
        none,
        compared,
        baseline,
      ]);
      expect(await store().findLatestExecution(where.orgId, where.repo, 'feature')).toEqual(
        compared,
      );
      expect(await store().listRepositories(where.orgId)).toEqual([
        { repo: where.repo, total: 4, latest: unknown },
      ]);
    });

    it('keeps the baseline of a record stored with an idempotency key', async () => {
      const where = await givenRepo(store());
      const record = buildExecution({
        ...where,
        baselineId: newPrefixedId('exe_'),
        baselineCoverage: 0.01,
        baselineCommit: null,
        baselineCreatedAt: secondsAfter(FIXTURE_TIME, -3600),
      });
      const claim = buildIdempotencyClaim();
      await store().insertKeyedExecution(record, claim);

      expect(await store().findIdempotentExecution(where.orgId, claim.key, FIXTURE_TIME)).toEqual({
        requestDigest: claim.requestDigest,
        record,
      });
    });

    describe('repositories', () => {
      it('lists each repository once with its total and newest record, most recently active first', async () => {
        const orgId = await givenOrganisation(store());
        const quiet = buildExecution({ orgId, repo: 'quiet', createdAt: FIXTURE_TIME });
        const busyOld = buildExecution({
          orgId,
          repo: 'busy',
          createdAt: secondsAfter(FIXTURE_TIME, 1),
        });
        const busyNew = buildExecution({
          orgId,
          repo: 'busy',
          branch: 'feature',
          outcome: 'fail',
          delta: '-2.00',
          coverage: 71.5,
          commit: 'abcdef1',
          createdAt: secondsAfter(FIXTURE_TIME, 5),
        });
        const middle = buildExecution({
          orgId,
          repo: 'middle',
          createdAt: secondsAfter(FIXTURE_TIME, 3),
        });
        for (const record of [busyNew, quiet, middle, busyOld])
          await store().insertExecution(record);

        expect(await store().listRepositories(orgId)).toEqual([
          { repo: 'busy', total: 2, latest: busyNew },
          { repo: 'middle', total: 1, latest: middle },
          { repo: 'quiet', total: 1, latest: quiet },
        ]);
      });

      it('keeps the newest record when an older one is inserted later, ties broken by id', async () => {
        const where = await givenRepo(store());
        const [low, high] = [1, 2].map(() => buildExecution({ ...where, createdAt: FIXTURE_TIME }));
        const older = buildExecution({ ...where, createdAt: secondsAfter(FIXTURE_TIME, -10) });
        for (const record of [high!, low!, older]) await store().insertExecution(record);

        expect(await store().listRepositories(where.orgId)).toEqual([
          { repo: where.repo, total: 3, latest: high },
        ]);
      });

      it('orders repositories with the same latest instant by latest id, highest first', async () => {
        const orgId = await givenOrganisation(store());
        const first = buildExecution({ orgId, repo: 'a' });
        const second = buildExecution({ orgId, repo: 'b' });
        await store().insertExecution(second);
        await store().insertExecution(first);

        expect((await store().listRepositories(orgId)).map((summary) => summary.repo)).toEqual([
          'b',
          'a',
        ]);
      });

      it("lists nothing for an organisation without records and never another's repositories", async () => {
        const where = await givenRepo(store());
        await store().insertExecution(buildExecution({ ...where }));

        expect(await store().listRepositories(await givenOrganisation(store()))).toEqual([]);
        expect((await store().listRepositories(where.orgId)).map((s) => s.repo)).toEqual([
          where.repo,
        ]);
      });

      it('does not move the counter when a duplicate id is rejected', async () => {
        const where = await givenRepo(store());
        const record = buildExecution({ ...where });
        await store().insertExecution(record);
        await expect(
          store().insertExecution({ ...record, createdAt: secondsAfter(FIXTURE_TIME, 60) }),
        ).rejects.toBeInstanceOf(StoreConflictError);

        expect(await store().listRepositories(where.orgId)).toEqual([
          { repo: where.repo, total: 1, latest: record },
        ]);
      });
    });

    describe('baseline', () => {
      it('is the latest pass or warn record on the branch, skipping later failures', async () => {
        const where = await givenRepo(store());
        const pass = buildExecution({ ...where, outcome: 'pass', createdAt: FIXTURE_TIME });
        const warn = buildExecution({
          ...where,
          outcome: 'warn',
          createdAt: secondsAfter(FIXTURE_TIME, 1),
        });
        const fail = buildExecution({
          ...where,
          outcome: 'fail',
          createdAt: secondsAfter(FIXTURE_TIME, 2),
        });
        for (const record of [pass, warn, fail]) await store().insertExecution(record);

        expect(await store().findBaseline(where.orgId, where.repo, 'main')).toEqual(warn);
      });

      it('ignores records of other branches, repositories and organisations', async () => {
        const where = await givenRepo(store());
        const baseline = buildExecution({ ...where, branch: 'main', createdAt: FIXTURE_TIME });
        await insertWithLaterOthers(baseline, [
          { branch: 'dev' },
          { branch: 'Main' },
          { repo: `${where.repo}x` },
        ]);

        expect(await store().findBaseline(where.orgId, where.repo, 'main')).toEqual(baseline);
      });

      it('is null when the branch has only failures', async () => {
        const where = await givenRepo(store());
        await store().insertExecution(buildExecution({ ...where, outcome: 'fail' }));

        expect(await store().findBaseline(where.orgId, where.repo, 'main')).toBeNull();
      });

      itFindsOneRecordOfTheBranch(
        (on, orgId, repo, branch) => on.findBaseline(orgId, repo, branch),
        'pass',
      );
    });

    describe('latest execution', () => {
      it('is the newest record on the branch whatever its outcome', async () => {
        const where = await givenRepo(store());
        const pass = buildExecution({ ...where, outcome: 'pass', createdAt: FIXTURE_TIME });
        const fail = buildExecution({
          ...where,
          outcome: 'fail',
          coverage: 41.5,
          createdAt: secondsAfter(FIXTURE_TIME, 1),
        });
        await store().insertExecution(fail);
        await store().insertExecution(pass);

        expect(await store().findLatestExecution(where.orgId, where.repo, 'main')).toEqual(fail);
      });

      it('ignores records of other branches and organisations', async () => {
        const where = await givenRepo(store());
        const latest = buildExecution({ ...where, branch: 'main', createdAt: FIXTURE_TIME });
        await insertWithLaterOthers(latest, [{ branch: 'dev' }]);

        expect(await store().findLatestExecution(where.orgId, where.repo, 'main')).toEqual(latest);
      });

      itFindsOneRecordOfTheBranch(
        (on, orgId, repo, branch) => on.findLatestExecution(orgId, repo, branch),
        'fail',
      );
    });
  });
}
