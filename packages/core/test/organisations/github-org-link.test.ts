import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/audit/audit-line.js';
import type { OrganisationMembership } from '../../src/oauth/code-host.js';
import {
  GITHUB_ORG_LOGIN,
  normaliseGithubOrg,
  syncLinkedMemberships,
} from '../../src/organisations/github-org-link.js';
import { createMemoryStore } from '../../src/storage/memory-store.js';
import type { GithubOrgLink, Membership } from '../../src/storage/store.js';
import { fixedClock } from '../../src/time/timestamp.js';

const NOW = new Date('2026-11-27T10:00:00Z');
const EARLIER = new Date('2026-11-01T10:00:00Z');

function setup() {
  const store = createMemoryStore();
  const events: AuditEvent[] = [];
  const warnings: string[] = [];
  const deps = {
    store,
    clock: fixedClock(NOW),
    audit: { record: (event: AuditEvent) => events.push(event) },
    logger: { warn: (line: string) => warnings.push(line) },
  };
  const link = (orgId: string, githubOrg: string): GithubOrgLink => ({
    orgId,
    githubOrg,
    linkedBy: 'usr_owner',
    linkedAt: EARLIER,
  });
  const member = (orgId: string, userId: string, extra: Partial<Membership> = {}) =>
    store.addMember({ orgId, userId, role: 'member', createdAt: EARLIER, ...extra });
  const sync = (links: GithubOrgLink[], answers: Record<string, OrganisationMembership>) =>
    syncLinkedMemberships(deps, 'usr_mate', links, new Map(Object.entries(answers)));
  return { store, events, warnings, link, member, sync };
}

describe('GitHub organisation names', () => {
  it('accepts what GitHub accepts for an account name, and compares without case', () => {
    for (const name of ['acme', 'Acme-Inc', 'a', 'a1-b2-c3', 'x'.repeat(39)]) {
      expect(GITHUB_ORG_LOGIN.test(name), name).toBe(true);
    }
    for (const name of ['', '-acme', 'acme-', 'ac--me', 'x'.repeat(40), 'ac me', 'acme_inc']) {
      expect(GITHUB_ORG_LOGIN.test(name), name).toBe(false);
    }
    expect(normaliseGithubOrg('Acme-Inc')).toBe('acme-inc');
  });
});

describe('syncLinkedMemberships', () => {
  it('joins a member of the GitHub organisation as member, marked github-org, with an audit line', async () => {
    const { store, events, link, sync } = setup();
    const joined = await sync([link('org_a', 'acme'), link('org_b', 'other')], {
      acme: 'member',
      other: 'not-member',
    });
    expect(joined).toEqual(['org_a']);
    expect(await store.findMember('org_a', 'usr_mate')).toEqual({
      orgId: 'org_a',
      userId: 'usr_mate',
      role: 'member',
      createdAt: NOW,
      source: 'github-org',
    });
    expect(await store.findMember('org_b', 'usr_mate')).toBeNull();
    expect(events).toEqual([
      { type: 'member.add', orgId: 'org_a', userId: 'usr_mate', role: 'member', via: 'github-org' },
    ]);
  });

  it('leaves an existing member as they are: no new role, no audit line', async () => {
    const { store, events, link, member, sync } = setup();
    await member('org_a', 'usr_mate', { role: 'admin' });
    expect(await sync([link('org_a', 'acme')], { acme: 'member' })).toEqual([]);
    expect((await store.findMember('org_a', 'usr_mate'))?.role).toBe('admin');
    expect(events).toEqual([]);
  });

  it('removes a member who joined through the link once GitHub no longer lists them', async () => {
    const { store, events, link, member, sync } = setup();
    await member('org_a', 'usr_owner', { role: 'owner' });
    await member('org_a', 'usr_mate', { source: 'github-org' });
    expect(await sync([link('org_a', 'acme')], { acme: 'not-member' })).toEqual([]);
    expect(await store.findMember('org_a', 'usr_mate')).toBeNull();
    expect(events).toEqual([
      {
        type: 'member.remove',
        orgId: 'org_a',
        userId: 'usr_mate',
        by: 'github',
        via: 'github-org',
      },
    ]);
  });

  it('keeps a member who joined another way (an invite, a link) when GitHub does not list them', async () => {
    const { store, events, link, member, sync } = setup();
    await member('org_a', 'usr_mate');
    await sync([link('org_a', 'acme')], { acme: 'not-member' });
    expect(await store.findMember('org_a', 'usr_mate')).not.toBeNull();
    expect(events).toEqual([]);
  });

  it('changes nothing when GitHub could not say, and says so in the log', async () => {
    const { store, events, warnings, link, member, sync } = setup();
    await member('org_a', 'usr_owner', { role: 'owner' });
    await member('org_a', 'usr_mate', { source: 'github-org' });
    expect(await sync([link('org_a', 'acme'), link('org_b', 'beta')], { acme: 'unknown' })).toEqual(
      [],
    );
    expect(await store.findMember('org_a', 'usr_mate')).not.toBeNull();
    expect(await store.findMember('org_b', 'usr_mate')).toBeNull();
    expect(events).toEqual([]);
    expect(warnings).toEqual([
      '[oauth] github: the membership of usr_mate in the linked GitHub organisation acme could not be checked; it stays as it was',
      '[oauth] github: the membership of usr_mate in the linked GitHub organisation beta could not be checked; it stays as it was',
    ]);
  });

  it('keeps the last owner even when they joined through the link and left GitHub', async () => {
    const { store, warnings, link, member, sync } = setup();
    await member('org_a', 'usr_mate', { role: 'owner', source: 'github-org' });
    await sync([link('org_a', 'acme')], { acme: 'not-member' });
    expect((await store.findMember('org_a', 'usr_mate'))?.role).toBe('owner');
    expect(warnings).toEqual([
      '[oauth] github: usr_mate left the GitHub organisation acme but stays the last owner of org_a',
    ]);
  });
});
