import {
  buildExecution,
  buildOrganisation,
  buildSession,
  buildTokenRecord,
  buildUser,
  FIXTURE_TIME,
  secondsAfter,
} from '@covgate/testing';
import { runStoreConformanceSuite } from '@covgate/testing/vitest';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/storage/memory-store.js';

runStoreConformanceSuite('memory', { createStore: async () => createMemoryStore() });

describe('memory store copy isolation', () => {
  it('keeps a stored token unchanged when the caller mutates the returned object', async () => {
    const store = createMemoryStore();
    const token = buildTokenRecord();
    await store.insertToken(token);

    const found = (await store.findTokenById(token.id))!;
    found.name = 'tampered';
    found.scopes.push('admin');
    found.createdAt.setTime(0);
    const [listed] = await store.listTokensByOrg(token.orgId);
    listed!.status = 'active';
    listed!.scopes.length = 0;

    expect(await store.findTokenById(token.id)).toEqual(token);
  });

  it('keeps a stored token unchanged when the caller mutates what it inserted', async () => {
    const store = createMemoryStore();
    const token = buildTokenRecord();
    const snapshot = structuredClone(token);
    await store.insertToken(token);

    token.scopes.push('admin');
    token.createdAt.setTime(0);

    expect(await store.findTokenById(snapshot.id)).toEqual(snapshot);
  });

  it('keeps patched scopes and grace period ends apart from the caller’s arrays and dates', async () => {
    const store = createMemoryStore();
    const old = buildTokenRecord();
    const replacement = buildTokenRecord({ orgId: old.orgId });
    await store.insertToken(old);
    const scopes = ['execute'];
    const graceEnd = secondsAfter(FIXTURE_TIME, 60);
    const usedAt = secondsAfter(FIXTURE_TIME, 5);

    await store.updateToken(old.id, { scopes });
    await store.rotateToken(old.id, replacement, graceEnd);
    await store.touchToken(old.id, usedAt);
    scopes.push('admin');
    graceEnd.setTime(0);
    usedAt.setTime(0);
    replacement.scopes.push('admin');

    const stored = await store.findTokenById(old.id);
    expect(stored?.scopes).toEqual(['execute']);
    expect(stored?.gracePeriodEndsAt).toEqual(secondsAfter(FIXTURE_TIME, 60));
    expect(stored?.lastUsedAt).toEqual(secondsAfter(FIXTURE_TIME, 5));
    expect((await store.findTokenById(replacement.id))?.scopes).toEqual(['execute']);
  });

  it('keeps stored executions unchanged when the caller mutates listed records', async () => {
    const store = createMemoryStore();
    const record = buildExecution({ coverage: 84.13 });
    await store.insertExecution(record);

    const [listed] = await store.listExecutions({ ...record, limit: 10 });
    listed!.coverage = 0;
    listed!.createdAt.setTime(0);
    const baseline = await store.findBaseline(record.orgId, record.repo, record.branch);
    baseline!.outcome = 'fail';
    const latest = await store.findLatestExecution(record.orgId, record.repo, record.branch);
    latest!.id = 'exe_tampered';

    expect(await store.listExecutions({ ...record, limit: 10 })).toEqual([record]);
    expect(await store.findBaseline(record.orgId, record.repo, record.branch)).toEqual(record);
  });

  it('keeps organisations, users and sessions unchanged when the caller mutates them', async () => {
    const store = createMemoryStore();
    const org = buildOrganisation();
    const user = buildUser();
    const session = buildSession();
    await store.createOrganisation(org);
    await store.insertSession(session);

    (await store.findOrganisationBySlug(org.slug))!.plan = 'enterprise';
    (await store.findOrCreateUser(user)).login = 'tampered';
    (await store.findSessionByTokenHash(session.tokenHash))!.expiresAt.setTime(0);

    expect(await store.findOrganisationById(org.id)).toEqual(org);
    expect(await store.findUserById(user.id)).toEqual(user);
    expect(await store.findSessionById(session.id)).toEqual(session);
  });
});

describe('memory store lifecycle', () => {
  it('shares nothing between two stores', async () => {
    const first = createMemoryStore();
    const second = createMemoryStore();
    const token = buildTokenRecord();

    await first.insertToken(token);

    expect(await second.findTokenById(token.id)).toBeNull();
  });

  it('refuses every call once closed', async () => {
    const store = createMemoryStore();
    const token = buildTokenRecord();
    await store.insertToken(token);

    await store.close();

    await expect(store.findTokenById(token.id)).rejects.toThrow('memory store is closed');
    await expect(store.insertExecution(buildExecution())).rejects.toThrow('closed');
    await expect(store.claimWebhookEvent('provider-a', 'evt_1', FIXTURE_TIME)).rejects.toThrow(
      'closed',
    );
  });
});
