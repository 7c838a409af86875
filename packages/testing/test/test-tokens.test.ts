import { Writable } from 'node:stream';
import { createApi, createMemoryStore, createTokenHasher, parseApiToken } from '@covgate/core';
import { buildOrganisation, FIXTURE_TIME, issueTestToken } from '@covgate/testing';
import pino from 'pino';
import { describe, expect, it } from 'vitest';

const hasher = createTokenHasher({ memoryCost: 1024, timeCost: 1, pepper: 'pepper-a' });

async function storeWithOrganisation() {
  const store = createMemoryStore();
  const org = buildOrganisation();
  await store.createOrganisation(org);
  return { store, org };
}

describe('issueTestToken', () => {
  it('inserts an active execute token whose raw secret verifies against the stored hash', async () => {
    const { store, org } = await storeWithOrganisation();

    const issued = await issueTestToken(store, { orgId: org.id, hasher });

    expect(parseApiToken(issued.token)?.id).toBe(issued.id);
    expect(await store.findTokenById(issued.id)).toEqual(issued.record);
    expect(issued.record).toMatchObject({
      id: issued.id,
      orgId: org.id,
      name: `token ${issued.id.slice(0, 8)}`,
      scopes: ['execute'],
      status: 'active',
      createdAt: FIXTURE_TIME,
      lastUsedAt: null,
      gracePeriodEndsAt: null,
    });
    expect(await hasher.verify(issued.record.hash, issued.token)).toBe(true);
    expect(issued.record.hash).not.toContain(issued.token.slice(4));
  });

  it('hashes with the hasher it is given, so another pepper does not verify the token', async () => {
    const { store, org } = await storeWithOrganisation();
    const otherPepper = createTokenHasher({ memoryCost: 1024, timeCost: 1, pepper: 'pepper-b' });

    const issued = await issueTestToken(store, { orgId: org.id, hasher });

    expect(await otherPepper.verify(issued.record.hash, issued.token)).toBe(false);
  });

  it('keeps the scopes, unicode name and creation time it is given, an empty scope list included', async () => {
    const { store, org } = await storeWithOrganisation();
    const createdAt = new Date('2026-03-01T12:00:00Z');

    const admin = await issueTestToken(store, {
      orgId: org.id,
      hasher,
      scopes: ['admin', 'execute'],
      name: 'café ✓ ci',
      createdAt,
    });
    const none = await issueTestToken(store, { orgId: org.id, hasher, scopes: [] });

    expect(await store.findTokenById(admin.id)).toMatchObject({
      scopes: ['admin', 'execute'],
      name: 'café ✓ ci',
      createdAt,
    });
    expect((await store.findTokenById(none.id))?.scopes).toEqual([]);
  });

  it('makes a different token on every call', async () => {
    const { store, org } = await storeWithOrganisation();

    const first = await issueTestToken(store, { orgId: org.id, hasher });
    const second = await issueTestToken(store, { orgId: org.id, hasher });

    expect(second.id).not.toBe(first.id);
    expect(second.token).not.toBe(first.token);
    expect((await store.listTokensByOrg(org.id)).map((token) => token.id).sort()).toEqual(
      [first.id, second.id].sort(),
    );
  });

  it('inserts nothing when hashing fails', async () => {
    const { store, org } = await storeWithOrganisation();
    const failing = { hash: () => Promise.reject(new Error('hasher down')) };

    await expect(issueTestToken(store, { orgId: org.id, hasher: failing })).rejects.toThrow(
      'hasher down',
    );
    expect(await store.listTokensByOrg(org.id)).toEqual([]);
  });

  it('gives a bearer token the API accepts', async () => {
    const { store, org } = await storeWithOrganisation();
    const api = createApi({
      store,
      sessionSecret: 'test-tokens-session-secret-0123456789',
      tokenHasher: hasher,
      logger: pino({ base: null }, new Writable({ write: (_c, _e, done) => done() })),
      auditSink: { write() {} },
    });
    const { token } = await issueTestToken(store, { orgId: org.id, hasher });

    const response = await api.handle(
      new Request(`http://localhost/v1/executions?org=${org.slug}&repo=r`, {
        headers: { authorization: `Bearer ${token}` },
      }),
    );

    expect(response.status).toBe(200);
  });
});
