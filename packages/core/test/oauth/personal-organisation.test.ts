import {
  createManualClock,
  createMemoryStore,
  createPersonalOrganisationResolver,
} from '@covgate/core';
import { describe, expect, it } from 'vitest';

const clock = createManualClock(new Date('2026-03-01T12:00:00.750Z'));

/** A resolver over a fresh memory store, and the store. */
function newResolver() {
  const store = createMemoryStore();
  return { store, resolve: createPersonalOrganisationResolver({ store, clock }) };
}

describe('createPersonalOrganisationResolver', () => {
  it('creates a user and a free personal organisation slugged by the account id', async () => {
    const { store, resolve } = newResolver();
    const { userId, orgId } = await resolve({
      codeHost: 'github',
      user: { id: '583231', login: 'octocat' },
    });
    expect(userId).toMatch(/^usr_[0-9a-z]{26}$/);
    const org = await store.findOrganisationById(orgId);
    expect(org).toMatchObject({ slug: 'github-583231', name: 'octocat', plan: 'free' });
    expect(org?.createdAt.toISOString()).toBe('2026-03-01T12:00:00.000Z');
    expect(await store.findUserById(userId)).toMatchObject({
      provider: 'github',
      externalId: '583231',
      login: 'octocat',
    });
  });

  it('keeps the organisation of an account whose login changed', async () => {
    const { resolve } = newResolver();
    const before = await resolve({ codeHost: 'github', user: { id: '7', login: 'old-name' } });
    const after = await resolve({ codeHost: 'github', user: { id: '7', login: 'new-name' } });
    expect(after).toEqual(before);
  });

  it('never hands an account the organisation of another account that once had its login', async () => {
    const { resolve } = newResolver();
    const first = await resolve({ codeHost: 'github', user: { id: '1', login: 'taken' } });
    const second = await resolve({ codeHost: 'github', user: { id: '2', login: 'taken' } });
    expect(second.orgId).not.toBe(first.orgId);
    expect(second.userId).not.toBe(first.userId);
  });

  it('separates the same account id on two code hosts', async () => {
    const { resolve } = newResolver();
    const github = await resolve({ codeHost: 'github', user: { id: '9', login: 'x' } });
    const enterprise = await resolve({ codeHost: 'ghe', user: { id: '9', login: 'x' } });
    expect(enterprise.orgId).not.toBe(github.orgId);
  });

  it('resolves 10 concurrent first logins of one account to one user and one organisation', async () => {
    const { resolve } = newResolver();
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        resolve({ codeHost: 'github', user: { id: '42', login: 'busy' } }),
      ),
    );
    expect(new Set(results.map((r) => r.userId)).size).toBe(1);
    expect(new Set(results.map((r) => r.orgId)).size).toBe(1);
  });
});
