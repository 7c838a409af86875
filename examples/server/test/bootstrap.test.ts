import { createAuditLogger, createMemoryStore, OrganisationInputError } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { bootstrapOrganisation } from '../src/bootstrap.js';

const input = {
  plan: 'free' as const,
  userId: 'usr_admin',
  sessionSecret: 'bootstrap-test-session-secret-0123456789',
  sessionLifetimeSeconds: undefined,
  now: new Date('2026-03-01T12:00:00Z'),
};

describe('bootstrapOrganisation', () => {
  it('never reuses a personal organisation: a code-host slug is refused before any look-up', async () => {
    const store = createMemoryStore();
    const personal = {
      id: 'org_01jpersonal00000000000000000',
      slug: 'github-4242',
      name: 'octocat',
      plan: 'team' as const,
      createdAt: new Date('2026-02-01T00:00:00Z'),
    };
    await store.createPersonalOrganisation(personal, 'usr_01jowner0000000000000000000');

    const attempt = bootstrapOrganisation(store, { ...input, slug: 'github-4242' });

    await expect(attempt).rejects.toBeInstanceOf(OrganisationInputError);
    await expect(attempt).rejects.toThrow(
      'reserved slug: github-... is kept for personal organisations',
    );
  });

  it('makes the user an owner: added when not a member, promoted when one with another role', async () => {
    const store = createMemoryStore();
    const lines: string[] = [];
    const audit = createAuditLogger({ write: (line) => lines.push(line) });
    const first = await bootstrapOrganisation(store, { ...input, slug: 'acme', audit });
    const orgId = first.organisation.id;
    await store.addMember({ orgId, userId: 'usr_ops', role: 'member', createdAt: input.now });
    await bootstrapOrganisation(store, { ...input, slug: 'acme', userId: 'usr_ops', audit });

    expect((await store.listMembers(orgId)).map((m) => [m.userId, m.role])).toEqual([
      ['usr_admin', 'owner'],
      ['usr_ops', 'owner'],
    ]);
    expect(lines.filter((line) => line.startsWith('[audit] member.'))).toEqual([
      `[audit] member.add org_id=${orgId} user_id=usr_admin role=owner`,
      `[audit] member.role org_id=${orgId} user_id=usr_ops role=owner by=covgate-admin`,
    ]);
  });

  it('names the administrator among the members, not by the raw id usr_admin', async () => {
    const store = createMemoryStore();
    const { organisation } = await bootstrapOrganisation(store, { ...input, slug: 'acme' });
    await bootstrapOrganisation(store, { ...input, slug: 'acme' });

    expect((await store.listMembers(organisation.id)).map((m) => [m.userId, m.login])).toEqual([
      ['usr_admin', 'Administrator'],
    ]);
  });

  it('leaves another bootstrap user unnamed: covgate knows no name for it', async () => {
    const store = createMemoryStore();
    const { organisation } = await bootstrapOrganisation(store, {
      ...input,
      slug: 'acme',
      userId: 'usr_ops',
    });

    expect((await store.listMembers(organisation.id)).map((m) => [m.userId, m.login])).toEqual([
      ['usr_ops', null],
    ]);
  });

  it('reuses an ordinary organisation of that slug', async () => {
    const store = createMemoryStore();
    const first = await bootstrapOrganisation(store, { ...input, slug: 'acme' });
    const again = await bootstrapOrganisation(store, { ...input, slug: 'acme' });

    expect([first.created, again.created]).toEqual([true, false]);
    expect(again.organisation).toEqual(first.organisation);
  });
});
