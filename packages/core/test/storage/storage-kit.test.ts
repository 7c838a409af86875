import {
  createStoreGuard,
  DeadlineExceededError,
  type DeliverySettlement,
  deliverySettlements,
  errorCode,
  failureLine,
  guardedStore,
  insertKeyedExecution,
  isInviteOpen,
  KEYED_INSERT_ATTEMPTS,
  liveExecution,
  outboxStatsOf,
  pickColumns,
  repositoryLinkUpsert,
  rootCause,
  STORE_OPERATIONS,
  type StoreComponent,
  type StoreMethods,
  type StoreOperation,
} from '@covgate/core/storage-kit';
import {
  buildExecution,
  buildIdempotencyClaim,
  buildTokenRecord,
  FIXTURE_TIME,
  secondsAfter,
} from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/storage/memory-store.js';
import {
  StoreConflictError,
  StoreFailureError,
  StoreOverloadError,
} from '../../src/storage/store.js';

class DialectError extends StoreFailureError {
  constructor(component: StoreComponent, operation: string, code: string) {
    super(`[${component}] ${operation} failed: ${code}`);
  }
}

/** An ORM wrapper around a driver error, the SQL and its parameters in its message. */
const wrapped = (code: string, message: string): Error =>
  new Error('Failed query: select * from tokens where id = ?\nparams: secret-id', {
    cause: Object.assign(new Error(message), { code }),
  });

function guardWith(
  options: {
    deadlineMs?: number;
    secrets?: string[];
    overloadCode?: (error: unknown) => string | undefined;
  } = {},
) {
  const lines: string[] = [];
  const guard = createStoreGuard({
    logger: { error: (line) => lines.push(line), info: (line) => lines.push(`info ${line}`) },
    isDuplicateKey: (error) => errorCode(error) === 'DUP',
    failure: (component, operation, code) => new DialectError(component, operation, code),
    ...options,
  });
  return { guard, lines };
}

describe('createStoreGuard', () => {
  it('logs one line without the query and throws the dialect error naming the code only', async () => {
    const { guard, lines } = guardWith({ secrets: ['pw-42'] });

    const error = await guard('tokens', 'findTokenById', async () => {
      throw wrapped('ECONNRESET', 'connection to pw-42 reset');
    }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DialectError);
    expect((error as Error).message).toBe('[tokens] findTokenById failed: ECONNRESET');
    expect(lines).toEqual(['[tokens] findTokenById failed: ECONNRESET: connection to *** reset']);
  });

  it('logs a failure of a nested guarded call once, where it happened', async () => {
    const { guard, lines } = guardWith();

    const error = await guard('executions', 'outer', () =>
      guard('executions', 'inner', async () => {
        throw wrapped('EPIPE', 'broken pipe');
      }),
    ).catch((e: unknown) => e);

    expect((error as Error).message).toBe('[executions] inner failed: EPIPE');
    expect(lines).toEqual(['[executions] inner failed: EPIPE: broken pipe']);
  });

  it('turns a duplicate key into the conflict named by the call, and logs nothing', async () => {
    const { guard, lines } = guardWith();
    const duplicate = async () => {
      throw wrapped('DUP', 'Duplicate entry');
    };

    await expect(
      guard('tokens', 'insertToken', duplicate, 'token id already exists'),
    ).rejects.toThrow(new StoreConflictError('token id already exists'));
    await expect(
      guard('sessions', 'own', async () => {
        throw new StoreConflictError('user id already exists');
      }),
    ).rejects.toBeInstanceOf(StoreConflictError);
    expect(lines).toEqual([]);
  });

  it('logs a duplicate key where no conflict is expected as a failure', async () => {
    const { guard, lines } = guardWith();

    await expect(
      guard('webhooks', 'claimWebhookEvent', async () => {
        throw wrapped('DUP', 'Duplicate entry');
      }),
    ).rejects.toThrow('[webhooks] claimWebhookEvent failed: DUP');
    expect(lines).toEqual(['[webhooks] claimWebhookEvent failed: DUP: Duplicate entry']);
  });

  it('fails a call past its deadline as an overload with ETIMEDOUT', async () => {
    const { guard, lines } = guardWith({ deadlineMs: 5 });

    const error = await guard('tokens', 'findTokenById', () => new Promise(() => {})).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(StoreOverloadError);
    expect(error).toMatchObject({
      name: 'StoreOverloadError',
      message: '[tokens] findTokenById failed: ETIMEDOUT',
      code: 'ETIMEDOUT',
    });
    expect(lines).toEqual([
      '[tokens] findTokenById failed: ETIMEDOUT: no answer within 5 ms; the store is overloaded: answering 503 until a call succeeds again',
    ]);
    expect(new DeadlineExceededError(5).code).toBe('ETIMEDOUT');
  });

  it('logs an overload once per component when it starts and once when a call of it succeeds, with the count', async () => {
    const { guard, lines } = guardWith({
      secrets: ['pw-42'],
      overloadCode: (error) =>
        (rootCause(error) as Error).message === 'queue full at pw-42'
          ? 'POOL_QUEUE_FULL'
          : undefined,
    });
    const full = async () => {
      throw wrapped('', 'queue full at pw-42');
    };

    for (const operation of ['findTokenById', 'touchToken', 'findTokenById']) {
      await expect(guard('tokens', operation, full)).rejects.toMatchObject({
        name: 'StoreOverloadError',
        message: `[tokens] ${operation} failed: POOL_QUEUE_FULL`,
        code: 'POOL_QUEUE_FULL',
      });
    }
    await expect(guard('sessions', 'findSession', full)).rejects.toBeInstanceOf(StoreOverloadError);
    // Another failure is no overload: logged on its own, as ever.
    await expect(
      guard('tokens', 'findTokenById', async () => {
        throw wrapped('ECONNRESET', 'reset');
      }),
    ).rejects.toBeInstanceOf(DialectError);
    expect(await guard('tokens', 'findTokenById', async () => 'found')).toBe('found');
    expect(await guard('tokens', 'findTokenById', async () => 'again')).toBe('again');
    expect(lines).toEqual([
      '[tokens] findTokenById failed: Error: queue full at ***; the store is overloaded: answering 503 until a call succeeds again',
      '[sessions] findSession failed: Error: queue full at ***; the store is overloaded: answering 503 until a call succeeds again',
      '[tokens] findTokenById failed: ECONNRESET: reset',
      'info [tokens] store calls succeed again after an overload; 3 answered 503',
    ]);
    await expect(guard('tokens', 'findTokenById', full)).rejects.toBeInstanceOf(StoreOverloadError);
    expect(lines.at(-1)).toBe(
      '[tokens] findTokenById failed: Error: queue full at ***; the store is overloaded: answering 503 until a call succeeds again',
    );
  });

  it('logs the end of an overload through error when the logger has no info', async () => {
    const lines: string[] = [];
    const guard = createStoreGuard({
      logger: { error: (line) => lines.push(line) },
      isDuplicateKey: () => false,
      failure: (component, operation, code) => new DialectError(component, operation, code),
      deadlineMs: 5,
    });
    await guard('outbox', 'claimDeliveries', () => new Promise(() => {})).catch(() => {});
    await guard('outbox', 'claimDeliveries', async () => []);
    expect(lines).toEqual([
      '[outbox] claimDeliveries failed: ETIMEDOUT: no answer within 5 ms; the store is overloaded: answering 503 until a call succeeds again',
      '[outbox] store calls succeed again after an overload; 1 answered 503',
    ]);
  });

  it('refuses a deadline that is not a positive integer', () => {
    for (const deadlineMs of [0, -1, 1.5]) {
      expect(() => guardWith({ deadlineMs })).toThrow('deadlineMs must be a positive integer');
    }
  });
});

describe('guardedStore', () => {
  /** The memory store with every operation failing as `fail` says. */
  const failingMethods = (fail: () => Error): StoreMethods => {
    const methods: Record<string, unknown> = { close: async () => {} };
    for (const name of Object.keys(STORE_OPERATIONS)) {
      methods[name] = async () => {
        throw fail();
      };
    }
    return methods as unknown as StoreMethods;
  };

  it('runs every operation under its own name and its component of the table', async () => {
    const { guard, lines } = guardWith();
    const store = guardedStore(
      guard,
      failingMethods(() => wrapped('EPIPE', 'broken pipe')),
    );
    const call = (name: StoreOperation) =>
      (store[name] as () => Promise<unknown>)().catch((e: unknown) => (e as Error).message);

    const names = Object.keys(STORE_OPERATIONS) as StoreOperation[];
    const messages = await Promise.all(names.map(call));

    const expected = names.map(
      (name) => `[${STORE_OPERATIONS[name].component}] ${name} failed: EPIPE`,
    );
    expect(messages).toEqual(expected);
    expect(lines).toEqual(expected.map((line) => `${line}: broken pipe`));
    expect(STORE_OPERATIONS.findSessionById.component).toBe('sessions');
    expect(names).toHaveLength(85);
  });

  it("answers a duplicate key with the operation's conflict, and logs it where there is none", async () => {
    const { guard, lines } = guardWith();
    const store = guardedStore(
      guard,
      failingMethods(() => wrapped('DUP', 'Duplicate entry')),
    );

    await expect(store.insertToken(buildTokenRecord())).rejects.toThrow(
      new StoreConflictError('token id already exists'),
    );
    await expect(store.claimWebhookEvent('github', 'e-1', FIXTURE_TIME)).rejects.toThrow(
      '[webhooks] claimWebhookEvent failed: DUP',
    );
    expect(lines).toEqual(['[webhooks] claimWebhookEvent failed: DUP: Duplicate entry']);
  });

  it('passes the arguments through and returns the answer', async () => {
    const { guard } = guardWith();
    const store = guardedStore(guard, createMemoryStore());
    const token = buildTokenRecord();

    await store.insertToken(token);

    expect(await store.findTokenById(token.id)).toEqual(token);
  });

  it('leaves ping and close unguarded: a failing probe logs nothing', async () => {
    const { guard, lines } = guardWith();
    const down = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const store = guardedStore(guard, {
      ...failingMethods(() => down),
      ping: async () => {
        throw down;
      },
    });

    await expect(store.ping?.()).rejects.toBe(down);
    await expect(store.close()).resolves.toBeUndefined();
    expect(lines).toEqual([]);
  });
});

describe('failure lines', () => {
  it('find the first error with a code under the wrappers, else the innermost', () => {
    const driver = Object.assign(new Error('inner'), { code: 'SQLITE_BUSY' });
    const outer = new Error('wrapper', { cause: new Error('middle', { cause: driver }) });

    expect(rootCause(outer)).toBe(driver);
    expect(errorCode(new TypeError('x'))).toBe('TypeError');
    expect(failureLine('webhooks', 'claim', 'boom')).toBe('[webhooks] claim failed: UNKNOWN: boom');
  });
});

describe('row helpers', () => {
  it('pick the named columns of a table object', () => {
    expect(pickColumns({ id: 'c1', name: 'c2', secret: 'c3' }, ['id', 'name'])).toEqual({
      id: 'c1',
      name: 'c2',
    });
  });

  it('treat a key expiring at the claim instant as dead', () => {
    const record = buildExecution();
    const now = new Date('2026-03-01T12:00:00.900Z');
    const key = { requestDigest: 'd', expiresAt: new Date('2026-03-01T12:00:00Z'), record };

    expect(liveExecution(key, now)).toBeNull();
    expect(liveExecution({ ...key, expiresAt: secondsAfter(now, 1) }, now)).toEqual({
      requestDigest: 'd',
      record,
    });
  });
});

describe('dialect-free store logic', () => {
  const at = new Date('2026-03-01T12:00:00.700Z');
  const whole = new Date('2026-03-01T12:00:00Z');

  it('settles a delivery with exactly the columns of each outcome, instants in whole seconds', async () => {
    const calls: [string, string, DeliverySettlement][] = [];
    const settlements = deliverySettlements(async (id, owner, changes) => {
      calls.push([id, owner, changes]);
      return true;
    });
    const outcome = { at, error: 'x'.repeat(501), status: 502 };

    await settlements.markDeliverySent('d1', 'w1', at, 'comment_updated');
    await settlements.retryDelivery('d2', 'w1', {
      ...outcome,
      nextAttemptAt: secondsAfter(at, 60),
    });
    await settlements.failDelivery('d3', 'w2', { ...outcome, status: null });
    await settlements.deferDelivery('d4', 'w1', {
      ...outcome,
      status: 403,
      nextAttemptAt: secondsAfter(at, 1),
    });

    const failure = { lastError: 'x'.repeat(500), updatedAt: whole };
    expect(calls).toEqual([
      [
        'd1',
        'w1',
        { state: 'sent', sentAt: whole, sentResult: 'comment_updated', updatedAt: whole },
      ],
      ['d2', 'w1', { ...failure, lastStatus: 502, nextAttemptAt: secondsAfter(whole, 60) }],
      ['d3', 'w2', { ...failure, lastStatus: null, state: 'failed' }],
      [
        'd4',
        'w1',
        {
          ...failure,
          lastStatus: 403,
          nextAttemptAt: secondsAfter(whole, 1),
          attemptGivenBack: true,
        },
      ],
    ]);
  });

  it('ages the oldest pending delivery in whole seconds, never below 0, and counts by state', () => {
    const totals = [
      { state: 'pending', total: '3' },
      { state: 'failed', total: 2 },
    ];

    expect(outboxStatsOf(totals, secondsAfter(whole, -90), at)).toEqual({
      pending: 3,
      oldestPendingAgeSeconds: 90,
      failed: 2,
    });
    expect(outboxStatsOf([], secondsAfter(whole, 5), at)).toEqual({
      pending: 0,
      oldestPendingAgeSeconds: 0,
      failed: 0,
    });
    expect(outboxStatsOf(totals.slice(1), null, at).oldestPendingAgeSeconds).toBe(0);
  });

  it('holds an invite open until it is accepted, revoked or reaches its expiry', () => {
    const invite = {
      id: 'inv_1',
      orgId: 'org_1',
      tokenHash: 'h',
      role: 'member' as const,
      createdBy: 'usr_1',
      createdAt: whole,
      expiresAt: secondsAfter(whole, 10),
      acceptedBy: null,
      acceptedAt: null,
      revokedAt: null,
    };

    expect(isInviteOpen(invite, secondsAfter(whole, 9))).toBe(true);
    expect(isInviteOpen(invite, secondsAfter(whole, 10))).toBe(false);
    expect(isInviteOpen({ ...invite, acceptedAt: whole, acceptedBy: 'usr_2' }, whole)).toBe(false);
    expect(isInviteOpen({ ...invite, revokedAt: whole }, whole)).toBe(false);
  });

  it('upserts a repository link with every column but its key', () => {
    const link = {
      orgId: 'org_1',
      repo: 'shop',
      host: 'github' as const,
      repository: 'acme/shop',
      apiUrl: 'https://api.github.com',
      credential: 'sealed',
      credentialHint: '…f00d',
      createdBy: 'usr_1',
      createdAt: at,
      updatedAt: at,
    };

    const { row, changes } = repositoryLinkUpsert(link);

    expect(row).toEqual({ ...link, createdAt: whole, updatedAt: whole });
    expect(changes).toEqual({
      host: 'github',
      repository: 'acme/shop',
      apiUrl: 'https://api.github.com',
      credential: 'sealed',
      credentialHint: '…f00d',
      createdBy: 'usr_1',
      createdAt: whole,
      updatedAt: whole,
    });
  });
});

describe('insertKeyedExecution', () => {
  const duplicate = () => Object.assign(new Error('dup'), { code: 'DUP' });
  const isDuplicateKey = (error: unknown) => errorCode(error) === 'DUP';

  it('deletes a dead key and inserts again, at most KEYED_INSERT_ATTEMPTS times', async () => {
    const claim = buildIdempotencyClaim();
    const dead = { requestDigest: 'd', expiresAt: claim.createdAt, record: buildExecution() };
    let inserts = 0;
    let deletes = 0;

    const error = await insertKeyedExecution(claim, {
      isDuplicateKey,
      insert: async () => {
        inserts += 1;
        throw duplicate();
      },
      findKey: async () => dead,
      deleteDeadKey: async () => {
        deletes += 1;
      },
    }).catch((e: unknown) => e);

    expect((error as Error).message).toBe('dup');
    expect([inserts, deletes]).toEqual([KEYED_INSERT_ATTEMPTS, KEYED_INSERT_ATTEMPTS - 1]);
  });

  it('answers a duplicate without a key as a duplicate execution id', async () => {
    await expect(
      insertKeyedExecution(buildIdempotencyClaim(), {
        isDuplicateKey,
        insert: async () => {
          throw duplicate();
        },
        findKey: async () => null,
        deleteDeadKey: async () => {},
      }),
    ).rejects.toThrow(new StoreConflictError('execution id already exists'));
  });
});
