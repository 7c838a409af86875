import { createMemoryStore, hashSessionToken, OrganisationInputError } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import {
  ADMIN_MADE_PROVIDER,
  developmentLoginLink,
  LoginLinkError,
  loginLink,
  newPersonLoginLink,
  UnknownOrganisationError,
} from '../src/sign-in-links.js';

const input = {
  sessionSecret: 'sign-in-links-test-session-secret-0123456789',
  publicUrl: 'https://covgate.example.com/',
  now: new Date('2026-03-01T12:00:00Z'),
};
const LINK = /^https:\/\/covgate\.example\.com\/auth\/link\?token=cvgl_[0-9a-f]{64}$/;

describe('loginLink', () => {
  it('makes a 15-minute link on PUBLIC_URL for an existing organisation', async () => {
    const store = createMemoryStore();
    const dev = await developmentLoginLink(store, input);

    const link = await loginLink(store, { ...input, slug: 'dev', userId: 'usr_ops' });

    expect(link.url).toMatch(LINK);
    expect(link.url).not.toBe(dev.url);
    expect(link.expiresAt).toBe('2026-03-01T12:15:00Z');
    expect(link.organisation).toEqual(dev.organisation);
  });

  it('refuses an unknown organisation, naming the command that makes it', async () => {
    const attempt = loginLink(createMemoryStore(), { ...input, slug: 'acme', userId: 'usr_a' });

    await expect(attempt).rejects.toBeInstanceOf(UnknownOrganisationError);
    await expect(attempt).rejects.toThrow(
      'no organisation "acme": create it first with covgate-admin bootstrap acme',
    );
  });

  it('refuses a personal organisation slug before any look-up, and an unusable user id', async () => {
    const store = createMemoryStore();
    await developmentLoginLink(store, input);

    await expect(
      loginLink(store, { ...input, slug: 'github-4242', userId: 'usr_a' }),
    ).rejects.toBeInstanceOf(OrganisationInputError);
    for (const userId of ['', 'usr admin', 'u'.repeat(65)]) {
      const attempt = loginLink(store, { ...input, slug: 'dev', userId });
      await expect(attempt, userId).rejects.toBeInstanceOf(LoginLinkError);
      await expect(attempt, userId).rejects.toThrow(
        '--user must be 1-64 characters of A-Z, a-z, 0-9 and . _ : -',
      );
    }
  });
});

describe('newPersonLoginLink', () => {
  it('makes a link for a fresh user who joins as member, named when a name is given', async () => {
    const store = createMemoryStore();
    await developmentLoginLink(store, input);

    const named = await newPersonLoginLink(store, { ...input, slug: 'dev', name: '  Bea Guest ' });
    const unnamed = await newPersonLoginLink(store, { ...input, slug: 'dev' });

    expect(named.url).toMatch(LINK);
    expect(named.userId).toMatch(/^usr_[0-9a-z]{26}$/);
    expect(unnamed.userId).toMatch(/^usr_[0-9a-z]{26}$/);
    expect(new Set([named.userId, unnamed.userId, 'usr_admin']).size).toBe(3);
    expect([named.name, unnamed.name]).toEqual(['Bea Guest', null]);
    expect(await store.findUserById(named.userId)).toEqual({
      id: named.userId,
      provider: ADMIN_MADE_PROVIDER,
      externalId: named.userId,
      login: 'Bea Guest',
      createdAt: input.now,
    });
    expect(await store.findUserById(unnamed.userId)).toBeNull();
    const token = new URL(named.url).searchParams.get('token') as string;
    const used = await store.useSignInLink(hashSessionToken(token, input.sessionSecret), input.now);
    expect([used?.userId, used?.role]).toEqual([named.userId, 'member']);
  });

  it('refuses an empty, long or control-character name and an unknown organisation', async () => {
    const store = createMemoryStore();
    await developmentLoginLink(store, input);
    for (const name of ['', '   ', 'n'.repeat(65), 'a\nb']) {
      await expect(
        newPersonLoginLink(store, { ...input, slug: 'dev', name }),
        name,
      ).rejects.toThrow(new LoginLinkError('--name must be 1-64 printable characters'));
    }
    await expect(newPersonLoginLink(store, { ...input, slug: 'acme' })).rejects.toBeInstanceOf(
      UnknownOrganisationError,
    );
  });
});

describe('developmentLoginLink', () => {
  it('creates the development organisation once and signs usr_admin in to it', async () => {
    const store = createMemoryStore();
    const lines: string[] = [];
    const audit = { record: (event: { type: string }) => lines.push(event.type) };

    const first = await developmentLoginLink(store, { ...input, audit });
    const second = await developmentLoginLink(store, { ...input, audit });

    expect(first.organisation).toMatchObject({ slug: 'dev', name: 'Development', plan: 'free' });
    expect(second.organisation).toEqual(first.organisation);
    expect(lines).toEqual(['organisation.create']);
    const token = new URL(first.url).searchParams.get('token') ?? '';
    const stored = await store.useSignInLink(
      hashSessionToken(token, input.sessionSecret),
      input.now,
    );
    expect(stored).toMatchObject({ userId: 'usr_admin', orgId: first.organisation.id });
  });

  it('names usr_admin "Administrator", so the members page shows a name', async () => {
    const store = createMemoryStore();
    await developmentLoginLink(store, input);
    await developmentLoginLink(store, input);

    expect(await store.findUserById('usr_admin')).toMatchObject({
      id: 'usr_admin',
      provider: 'covgate-admin',
      login: 'Administrator',
    });
  });
});
