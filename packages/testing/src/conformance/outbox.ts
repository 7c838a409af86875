import type {
  DeliveryKind,
  DeliveryRecord,
  ExecutionRecord,
  NewDelivery,
  RepositoryLink,
  Store,
} from '@covgate/core';
import { describe, expect, it } from 'vitest';
import {
  buildExecution,
  buildIdempotencyClaim,
  FIXTURE_TIME,
  newPrefixedId,
  randomSuffix,
  secondsAfter,
} from '../fixtures.js';
import { givenOrganisation } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/** Later than any delivery a test enqueues: what the drain claims at. */
const FAR_FUTURE = new Date('2999-01-01T00:00:00Z');

/**
 * Gives up every pending delivery (the outbox is global, and a shared database keeps those of
 * earlier tests and runs), so a test's claims see only its own deliveries.
 */
async function drainOutbox(store: Store): Promise<void> {
  for (;;) {
    const claimed = await store.claimDeliveries('drain', FAR_FUTURE, 60_000, 500);
    if (claimed.length === 0) return;
    for (const delivery of claimed) {
      await store.failDelivery(delivery.id, 'drain', {
        at: FAR_FUTURE,
        error: 'drained',
        status: null,
      });
    }
  }
}

/** A delivery to enqueue, with a fresh id. */
function newDelivery(kind: DeliveryKind = 'status_project'): NewDelivery {
  return {
    id: newPrefixedId('dlv_'),
    kind,
    payload: JSON.stringify({ sha: randomSuffix(), kind }),
  };
}

/** The row a delivery enqueued with `record` is stored as. */
function enqueued(record: ExecutionRecord, delivery: NewDelivery): DeliveryRecord {
  return {
    ...delivery,
    orgId: record.orgId,
    repo: record.repo,
    executionId: record.id,
    state: 'pending',
    attempts: 0,
    nextAttemptAt: record.createdAt,
    leaseOwner: null,
    leaseUntil: null,
    lastError: null,
    lastStatus: null,
    createdAt: record.createdAt,
    updatedAt: record.createdAt,
    sentAt: null,
    sentResult: null,
  };
}

/**
 * Conformance tests of `RepositoryLinkStore` and `OutboxStore`, and of deliveries enqueued with
 * their run; `peer` is a second store on the same data when the suite has one.
 */
export function describeOutbox(store: StoreUnderTest, peer: StoreUnderTest): void {
  const link = (orgId: string, overrides: Partial<RepositoryLink> = {}): RepositoryLink => ({
    orgId,
    repo: `repo-${randomSuffix()}`,
    host: 'github',
    repository: `octo-${randomSuffix()}/widgets`,
    apiUrl: 'https://api.github.com',
    credential: `v1.${randomSuffix()}.${randomSuffix()}`,
    credentialHint: 'ab12',
    createdBy: newPrefixedId('usr_'),
    createdAt: FIXTURE_TIME,
    updatedAt: FIXTURE_TIME,
    ...overrides,
  });

  /** A run of a fresh repository of a fresh organisation, recorded `seconds` after the fixture time. */
  const givenRun = async (seconds = 0): Promise<ExecutionRecord> =>
    buildExecution({
      orgId: await givenOrganisation(store()),
      createdAt: secondsAfter(FIXTURE_TIME, seconds),
    });

  /** On a drained outbox, a fresh run inserted with `deliveries`. */
  const givenEnqueued = async (...deliveries: NewDelivery[]): Promise<ExecutionRecord> => {
    await drainOutbox(store());
    const record = await givenRun();
    await store().insertExecution(record, null, deliveries);
    return record;
  };

  describe('repository links', () => {
    it('saves a link with every field, finds it, replaces it (another host too) and deletes it', async () => {
      const orgId = await givenOrganisation(store());
      const first = link(orgId);

      expect(await store().findRepositoryLink(orgId, first.repo)).toBeNull();
      await store().putRepositoryLink(first);
      expect(await peer().findRepositoryLink(orgId, first.repo)).toEqual(first);

      const second = link(orgId, {
        repo: first.repo,
        host: 'gitlab',
        repository: 'octo/platform/other',
        apiUrl: 'https://gitlab.example.com/api/v4',
        credential: 'v1.rotated',
        credentialHint: 'zz99',
        updatedAt: secondsAfter(FIXTURE_TIME, 60),
      });
      await store().putRepositoryLink(second);
      expect(await store().findRepositoryLink(orgId, first.repo)).toEqual(second);

      expect(await store().deleteRepositoryLink(orgId, first.repo)).toBe(true);
      expect(await store().deleteRepositoryLink(orgId, first.repo)).toBe(false);
      expect(await store().findRepositoryLink(orgId, first.repo)).toBeNull();
    });

    it("keeps one link per repository of an organisation: another organisation's same name is its own", async () => {
      const [a, b] = [await givenOrganisation(store()), await givenOrganisation(store())];
      const mine = link(a);
      const theirs = link(b, { repo: mine.repo });
      const sibling = link(a);
      await store().putRepositoryLink(mine);
      await store().putRepositoryLink(theirs);
      await store().putRepositoryLink(sibling);

      expect(await store().deleteRepositoryLink(b, mine.repo)).toBe(true);
      expect(await store().findRepositoryLink(a, mine.repo)).toEqual(mine);
      expect(await store().findRepositoryLink(a, sibling.repo)).toEqual(sibling);
      expect(await store().findRepositoryLink(b, mine.repo)).toBeNull();
    });
  });

  describe('outbox', () => {
    it('enqueues deliveries with their run: pending, due at the run, in its organisation and repository', async () => {
      const record = await givenRun();
      const deliveries = [
        newDelivery('status_project'),
        newDelivery('status_patch'),
        newDelivery('comment'),
      ];

      await store().insertExecution(record, null, deliveries);

      expect(await peer().findExecution(record.orgId, record.id)).toEqual(record);
      expect(await peer().listRunDeliveries(record.orgId, record.id)).toEqual(
        deliveries.map((delivery) => enqueued(record, delivery)),
      );
      expect(await store().listRunDeliveries(newPrefixedId('org_'), record.id)).toEqual([]);
    });

    it('enqueues with a keyed insert once: a replay of the key enqueues nothing', async () => {
      const record = await givenRun();
      const claim = buildIdempotencyClaim();
      const deliveries = [newDelivery('status_project'), newDelivery('comment')];

      expect(await store().insertKeyedExecution(record, claim, null, deliveries)).toEqual({
        inserted: true,
      });
      const again = buildExecution({ orgId: record.orgId, repo: record.repo });
      const replay = await store().insertKeyedExecution(again, claim, null, [newDelivery()]);

      expect(replay.inserted).toBe(false);
      expect(await store().listRunDeliveries(record.orgId, record.id)).toEqual(
        deliveries.map((delivery) => enqueued(record, delivery)),
      );
      expect(await store().listRunDeliveries(record.orgId, again.id)).toEqual([]);
    });

    it('rolls the run and its deliveries back together: a taken delivery id stores neither', async () => {
      const first = await givenRun();
      const taken = newDelivery();
      await store().insertExecution(first, null, [taken]);
      const second = buildExecution({ orgId: first.orgId, repo: first.repo });
      const fresh = newDelivery('comment');

      await expect(store().insertExecution(second, null, [fresh, taken])).rejects.toThrow();

      expect(await store().findExecution(second.orgId, second.id)).toBeNull();
      expect(await store().countExecutions(first.orgId, first.repo)).toBe(1);
      expect(await store().listRunDeliveries(first.orgId, second.id)).toEqual([]);
      expect(await store().listRunDeliveries(first.orgId, first.id)).toEqual([
        enqueued(first, taken),
      ]);
    });

    it('rolls the deliveries back with a run whose id is taken', async () => {
      const record = await givenRun();
      await store().insertExecution(record);
      const again = { ...record, createdAt: secondsAfter(record.createdAt, 1) };

      await expect(store().insertExecution(again, null, [newDelivery()])).rejects.toThrow();

      expect(await store().listRunDeliveries(record.orgId, record.id)).toEqual([]);
    });

    it('claims due deliveries oldest first with a lease, counts the attempt, and none twice', async () => {
      await drainOutbox(store());
      const early = await givenRun(0);
      const late = await givenRun(5);
      const [a, b] = [newDelivery(), newDelivery('comment')];
      const c = newDelivery();
      await store().insertExecution(late, null, [c]);
      await store().insertExecution(early, null, [a, b]);

      expect(
        await store().claimDeliveries('sender-1', secondsAfter(FIXTURE_TIME, -1), 30_000, 10),
      ).toEqual([]);

      const at = secondsAfter(FIXTURE_TIME, 2);
      const claimed = await store().claimDeliveries('sender-1', at, 30_000, 10);
      const leased = (delivery: NewDelivery, record: ExecutionRecord) => ({
        ...enqueued(record, delivery),
        attempts: 1,
        leaseOwner: 'sender-1',
        leaseUntil: secondsAfter(at, 30),
        updatedAt: at,
      });
      expect(claimed).toEqual([leased(a, early), leased(b, early)]);

      const later = secondsAfter(FIXTURE_TIME, 10);
      const next = await peer().claimDeliveries('sender-2', later, 30_000, 10);
      expect(next.map((delivery) => delivery.id)).toEqual([c.id]);
      expect(await store().claimDeliveries('sender-2', later, 30_000, 10)).toEqual([]);
    });

    it('gives a delivery whose lease lapsed to another sender, and ignores the first one afterwards', async () => {
      const delivery = newDelivery();
      const record = await givenEnqueued(delivery);

      await store().claimDeliveries('crashed', FIXTURE_TIME, 30_000, 10);
      expect(
        await store().claimDeliveries('sender-2', secondsAfter(FIXTURE_TIME, 29), 30_000, 10),
      ).toEqual([]);
      const retaken = await store().claimDeliveries(
        'sender-2',
        secondsAfter(FIXTURE_TIME, 30),
        30_000,
        10,
      );
      expect(retaken.map((each) => [each.id, each.leaseOwner, each.attempts])).toEqual([
        [delivery.id, 'sender-2', 2],
      ]);

      const at = secondsAfter(FIXTURE_TIME, 31);
      expect(await store().markDeliverySent(delivery.id, 'crashed', at, 'status_set')).toBe(false);
      expect(
        await store().failDelivery(delivery.id, 'crashed', { at, error: 'late', status: 500 }),
      ).toBe(false);
      expect(await store().markDeliverySent(delivery.id, 'sender-2', at, 'status_set')).toBe(true);
      expect(await store().markDeliverySent(delivery.id, 'sender-2', at, 'status_set')).toBe(false);
      expect(await store().listRunDeliveries(record.orgId, record.id)).toEqual([
        {
          ...enqueued(record, delivery),
          state: 'sent',
          attempts: 2,
          updatedAt: at,
          sentAt: at,
          sentResult: 'status_set',
        },
      ]);
      expect(await store().claimDeliveries('sender-3', FAR_FUTURE, 30_000, 10)).toEqual([]);
    });

    it('puts a retried delivery back, due later, with the outcome, and fails one with its reason', async () => {
      const [retried, failed] = [newDelivery(), newDelivery('comment')];
      const record = await givenEnqueued(retried, failed);
      await store().claimDeliveries('sender', FIXTURE_TIME, 30_000, 10);

      const at = secondsAfter(FIXTURE_TIME, 1);
      const nextAttemptAt = secondsAfter(FIXTURE_TIME, 60);
      expect(
        await store().retryDelivery(retried.id, 'sender', {
          at,
          nextAttemptAt,
          error: 'GitHub answered 502',
          status: 502,
        }),
      ).toBe(true);
      expect(
        await store().failDelivery(failed.id, 'sender', {
          at,
          error: 'GitHub refused the credential (401)',
          status: 401,
        }),
      ).toBe(true);

      const base = { attempts: 1, updatedAt: at, leaseOwner: null, leaseUntil: null };
      expect(await peer().listRunDeliveries(record.orgId, record.id)).toEqual([
        {
          ...enqueued(record, retried),
          ...base,
          nextAttemptAt,
          lastError: 'GitHub answered 502',
          lastStatus: 502,
        },
        {
          ...enqueued(record, failed),
          ...base,
          state: 'failed',
          lastError: 'GitHub refused the credential (401)',
          lastStatus: 401,
        },
      ]);
      expect(
        await store().claimDeliveries('sender', secondsAfter(FIXTURE_TIME, 59), 30_000, 10),
      ).toEqual([]);
      const again = await store().claimDeliveries('sender', nextAttemptAt, 30_000, 10);
      expect(again.map((each) => [each.id, each.attempts])).toEqual([[retried.id, 2]]);
      expect(
        await store().retryDelivery(failed.id, 'sender', {
          at,
          nextAttemptAt,
          error: 'no',
          status: null,
        }),
      ).toBe(false);
    });

    it("defers a delivery: due later with the outcome, the claim's attempt given back, only by its holder", async () => {
      const delivery = newDelivery();
      const record = await givenEnqueued(delivery);
      await store().claimDeliveries('sender', FIXTURE_TIME, 30_000, 10);
      const firstRetry = secondsAfter(FIXTURE_TIME, 2);
      await store().retryDelivery(delivery.id, 'sender', {
        at: FIXTURE_TIME,
        nextAttemptAt: firstRetry,
        error: 'GitHub answered 502',
        status: 502,
      });
      await store().claimDeliveries('sender', firstRetry, 30_000, 10);

      const at = secondsAfter(FIXTURE_TIME, 3);
      const nextAttemptAt = secondsAfter(FIXTURE_TIME, 63);
      const outcome = {
        at,
        nextAttemptAt,
        error: 'GitHub rate limit (403): waiting',
        status: 403,
      };
      expect(await store().deferDelivery(delivery.id, 'elsewhere', outcome)).toBe(false);
      expect(await store().deferDelivery(delivery.id, 'sender', outcome)).toBe(true);
      expect(await store().deferDelivery(delivery.id, 'sender', outcome)).toBe(false);

      expect(await peer().listRunDeliveries(record.orgId, record.id)).toEqual([
        {
          ...enqueued(record, delivery),
          attempts: 1,
          nextAttemptAt,
          updatedAt: at,
          lastError: 'GitHub rate limit (403): waiting',
          lastStatus: 403,
        },
      ]);
      expect(
        await store().claimDeliveries('sender', secondsAfter(FIXTURE_TIME, 62), 30_000, 10),
      ).toEqual([]);
      const again = await store().claimDeliveries('sender', nextAttemptAt, 30_000, 10);
      expect(again.map((each) => [each.id, each.attempts])).toEqual([[delivery.id, 2]]);
    });

    it("releases every delivery its sender holds, and only those: due again, the claim's attempt given back", async () => {
      const [sent, held, theirs] = [newDelivery(), newDelivery('comment'), newDelivery()];
      const record = await givenEnqueued(sent, held, theirs);
      await store().claimDeliveries('sender-1', FIXTURE_TIME, 30_000, 2);
      await peer().claimDeliveries('sender-2', FIXTURE_TIME, 30_000, 10);
      await store().markDeliverySent(sent.id, 'sender-1', FIXTURE_TIME, 'comment_newer');

      const at = secondsAfter(FIXTURE_TIME, 4);
      expect(await store().releaseDeliveries('sender-1', at)).toBe(1);
      expect(await store().releaseDeliveries('sender-1', at)).toBe(0);

      expect(await peer().listRunDeliveries(record.orgId, record.id)).toEqual([
        {
          ...enqueued(record, sent),
          state: 'sent',
          attempts: 1,
          sentAt: FIXTURE_TIME,
          sentResult: 'comment_newer',
        },
        { ...enqueued(record, held), updatedAt: at },
        {
          ...enqueued(record, theirs),
          attempts: 1,
          leaseOwner: 'sender-2',
          leaseUntil: secondsAfter(FIXTURE_TIME, 30),
        },
      ]);
      const again = await store().claimDeliveries('sender-3', at, 30_000, 10);
      expect(again.map((each) => [each.id, each.attempts])).toEqual([[held.id, 1]]);
    });

    it('keeps a network failure without a status, and cuts a reason to 500 characters', async () => {
      const delivery = newDelivery();
      const record = await givenEnqueued(delivery);
      await store().claimDeliveries('sender', FIXTURE_TIME, 30_000, 10);

      await store().failDelivery(delivery.id, 'sender', {
        at: FIXTURE_TIME,
        error: `connection refused ${'é'.repeat(600)}`,
        status: null,
      });

      const [stored] = await store().listRunDeliveries(record.orgId, record.id);
      expect(stored?.lastStatus).toBeNull();
      expect(stored?.lastError).toBe(`connection refused ${'é'.repeat(500 - 19)}`);
    });

    it("lists a repository's latest failures, newest first, and only its own", async () => {
      await drainOutbox(store());
      const record = await givenRun();
      const other = buildExecution({ orgId: record.orgId, repo: `repo-${randomSuffix()}` });
      const [first, second, third, sent] = [
        newDelivery(),
        newDelivery('status_patch'),
        newDelivery('comment'),
        newDelivery(),
      ];
      const elsewhere = newDelivery();
      await store().insertExecution(record, null, [first, second, third, sent]);
      await store().insertExecution(other, null, [elsewhere]);
      await store().claimDeliveries('sender', FIXTURE_TIME, 30_000, 10);
      const fail = (id: string, seconds: number) =>
        store().failDelivery(id, 'sender', {
          at: secondsAfter(FIXTURE_TIME, seconds),
          error: `refused ${seconds}`,
          status: 404,
        });
      await fail(second.id, 5);
      await fail(first.id, 9);
      await fail(third.id, 5);
      await fail(elsewhere.id, 20);
      await store().markDeliverySent(sent.id, 'sender', FIXTURE_TIME, 'status_set');

      const failures = await peer().listDeliveryFailures(record.orgId, record.repo, 10);
      expect(failures.map((each) => [each.id, each.lastError])).toEqual([
        [first.id, 'refused 9'],
        [third.id, 'refused 5'],
        [second.id, 'refused 5'],
      ]);
      expect(await store().listDeliveryFailures(record.orgId, record.repo, 2)).toEqual(
        failures.slice(0, 2),
      );
      expect(await store().listDeliveryFailures(newPrefixedId('org_'), record.repo, 10)).toEqual(
        [],
      );
      // Since an instant: the failures given up at or after it, the same order.
      expect(
        await peer().listDeliveryFailures(
          record.orgId,
          record.repo,
          10,
          secondsAfter(FIXTURE_TIME, 5),
        ),
      ).toEqual(failures);
      expect(
        (
          await store().listDeliveryFailures(
            record.orgId,
            record.repo,
            10,
            secondsAfter(FIXTURE_TIME, 6),
          )
        ).map((each) => each.id),
      ).toEqual([first.id]);
      expect(
        await store().listDeliveryFailures(
          record.orgId,
          record.repo,
          10,
          secondsAfter(FIXTURE_TIME, 10),
        ),
      ).toEqual([]);
    });

    it('counts pending and failed deliveries and the age of the oldest pending one', async () => {
      await drainOutbox(store());
      const empty = await store().outboxStats(FIXTURE_TIME);
      expect(empty).toEqual({ pending: 0, oldestPendingAgeSeconds: 0, failed: empty.failed });

      const older = await givenRun(0);
      const newer = await givenRun(30);
      await store().insertExecution(newer, null, [newDelivery(), newDelivery()]);
      await store().insertExecution(older, null, [newDelivery('comment')]);
      const [claimed] = await store().claimDeliveries('sender', FIXTURE_TIME, 30_000, 1);
      await store().failDelivery(claimed!.id, 'sender', {
        at: FIXTURE_TIME,
        error: 'refused',
        status: 422,
      });

      expect(await peer().outboxStats(secondsAfter(FIXTURE_TIME, 100))).toEqual({
        pending: 2,
        oldestPendingAgeSeconds: 70,
        failed: empty.failed + 1,
      });
      const [held] = await store().claimDeliveries(
        'sender',
        secondsAfter(FIXTURE_TIME, 30),
        30_000,
        1,
      );
      expect((await store().outboxStats(secondsAfter(FIXTURE_TIME, 100))).pending).toBe(2);
      await store().markDeliverySent(held!.id, 'sender', FIXTURE_TIME, 'comment_created');
      expect(await store().outboxStats(secondsAfter(FIXTURE_TIME, 100))).toEqual({
        pending: 1,
        oldestPendingAgeSeconds: 70,
        failed: empty.failed + 1,
      });
    });

    it('gives each of 30 due deliveries to exactly one of 6 senders claiming at once', async () => {
      const deliveries = Array.from({ length: 30 }, () => newDelivery());
      const record = await givenEnqueued(...deliveries);

      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          (index % 2 === 0 ? store() : peer()).claimDeliveries(
            `sender-${index}`,
            FIXTURE_TIME,
            30_000,
            8,
          ),
        ),
      );

      const ids = claims.flatMap((claim) => claim.map((delivery) => delivery.id));
      expect(ids).toHaveLength(30);
      expect(new Set(ids)).toEqual(new Set(deliveries.map((delivery) => delivery.id)));
      const stored = await store().listRunDeliveries(record.orgId, record.id);
      for (const [index, claim] of claims.entries()) {
        for (const delivery of claim) {
          expect(stored.find((each) => each.id === delivery.id)).toMatchObject({
            leaseOwner: `sender-${index}`,
            attempts: 1,
          });
        }
      }
    });
  });
}
