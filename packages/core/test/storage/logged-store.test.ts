import { describe, expect, it } from 'vitest';
import { logStoreFailures } from '../../src/storage/logged-store.js';
import { createMemoryStore } from '../../src/storage/memory-store.js';
import { StoreConflictError, StoreFailureError } from '../../src/storage/store.js';

function capture() {
  const lines: string[] = [];
  return { lines, logger: { error: (message: string) => lines.push(message) } };
}

describe('logStoreFailures', () => {
  it('logs a failure once under its component and rethrows it as a StoreFailureError naming the operation and code', async () => {
    const { lines, logger } = capture();
    const inner = createMemoryStore();
    inner.findTokenById = async () => {
      throw Object.assign(new Error('connection reset by db:3306'), { code: 'ECONNRESET' });
    };
    const store = logStoreFailures(inner, logger);
    const error = await store.findTokenById('tok_1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreFailureError);
    expect((error as Error).message).toBe('[tokens] findTokenById failed: ECONNRESET');
    expect(lines).toEqual(['[tokens] connection reset by db:3306']);
  });

  it('uses each operation component: a session write logs under [sessions], a webhook claim under [webhooks]', async () => {
    const { lines, logger } = capture();
    const inner = createMemoryStore();
    inner.insertSession = async () => {
      throw new Error('disk full');
    };
    inner.claimWebhookEvent = async () => {
      throw 'not an Error';
    };
    const store = logStoreFailures(inner, logger);
    await expect(store.insertSession({} as never)).rejects.toThrow(
      new StoreFailureError('[sessions] insertSession failed: Error'),
    );
    await expect(store.claimWebhookEvent('provider-a', 'k', new Date(0))).rejects.toThrow(
      new StoreFailureError('[webhooks] claimWebhookEvent failed: UNKNOWN'),
    );
    expect(lines).toEqual(['[sessions] disk full', '[webhooks] not an Error']);
  });

  it('passes a StoreFailureError (already logged) and a StoreConflictError (an answer) through unlogged', async () => {
    const { lines, logger } = capture();
    const failure = new StoreFailureError('[tokens] insertToken failed: ETIMEDOUT');
    const conflict = new StoreConflictError('token id already exists');
    const inner = createMemoryStore();
    const store = logStoreFailures(inner, logger);
    inner.insertToken = async () => {
      throw failure;
    };
    await expect(store.insertToken({} as never)).rejects.toBe(failure);
    inner.insertToken = async () => {
      throw conflict;
    };
    await expect(store.insertToken({} as never)).rejects.toBe(conflict);
    expect(lines).toEqual([]);
  });

  it('looks each method up on the store at every call, with the store as this', async () => {
    const { logger } = capture();
    const inner = createMemoryStore();
    const store = logStoreFailures(inner, logger);
    expect(await store.findOrganisationById('org_none')).toBeNull();
    const receivers: unknown[] = [];
    inner.findOrganisationById = async function (this: unknown) {
      receivers.push(this);
      return null;
    };
    await store.findOrganisationById('org_none');
    expect(receivers).toEqual([inner]);
  });

  it('keeps ping absent when the store has none, and passes ping and close through unlogged', async () => {
    const { lines, logger } = capture();
    const inner = createMemoryStore();
    const { ping: _ping, ...withoutPing } = inner;
    expect(logStoreFailures(withoutPing, logger).ping).toBeUndefined();
    inner.ping = async () => {
      throw new Error('down');
    };
    await expect(logStoreFailures(inner, logger).ping?.()).rejects.toThrow(new Error('down'));
    let closed = 0;
    inner.close = async () => {
      closed += 1;
    };
    await logStoreFailures(inner, logger).close();
    expect(closed).toBe(1);
    expect(lines).toEqual([]);
  });
});
