import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/audit/audit-line.js';
import type { OrganisationMembership } from '../../src/oauth/code-host.js';
import {
  GITHUB_ORG_LOGIN,
  HOST_ORGANISATIONS,
  normaliseOrganisationPath,
  syncLinkedMemberships,
} from '../../src/organisations/organisation-link.js';
import { createMemoryStore } from '../../src/storage/memory-store.js';
import type { CodeHostKind, Membership, OrganisationLink } from '../../src/storage/store.js';
import { fixedClock } from '../../src/time/timestamp.js';

const NOW = new Date('2026-11-27T10:00:00Z');
const EARLIER = new Date('2026-11-01T10:00:00Z');

function setup(host: CodeHostKind) {
  const store = createMemoryStore();
  const events: AuditEvent[] = [];
  const warnings: string[] = [];
  const deps = {
    store,
    clock: fixedClock(NOW),
    audit: { record: (event: AuditEvent) => events.push(event) },
    logger: { warn: (line: string) => warnings.push(line) },
  };
  const link = (orgId: string, organisation: string, on = host): OrganisationLink => ({
    orgId,
    host: on,
    organisation,
    linkedBy: 'usr_owner',
    linkedAt: EARLIER,
  });
  const member = (orgId: string, userId: string, extra: Partial<Membership> = {}) =>
    store.addMember({ orgId, userId, role: 'member', createdAt: EARLIER, ...extra });
  const sync = (links: OrganisationLink[], answers: Record<string, OrganisationMembership>) =>
    syncLinkedMemberships(deps, host, 'usr_mate', links, new Map(Object.entries(answers)));
  return { store, events, warnings, link, member, sync };
}

describe('organisation paths', () => {
  it('accepts what GitHub accepts for an account name', () => {
    for (const name of ['acme', 'Acme-Inc', 'a', 'a1-b2-c3', 'x'.repeat(39)]) {
      expect(GITHUB_ORG_LOGIN.test(name), name).toBe(true);
    }
    for (const name of ['', '-acme', 'acme-', 'ac--me', 'x'.repeat(40), 'ac me', 'acme_inc']) {
      expect(GITHUB_ORG_LOGIN.test(name), name).toBe(false);
    }
  });

  it("accepts a GitLab group's full path, nested up to 20 groups, as GitLab names them", () => {
    const { isPath } = HOST_ORGANISATIONS.gitlab;
    const deepest = Array.from({ length: 20 }, (_, i) => `g${i}`).join('/');
    for (const path of ['acme', 'Acme/Platform', 'a/b.c/d_e-f', '_infra', deepest]) {
      expect(isPath(path), path).toBe(true);
    }
    for (const path of ['', 'acme/', '/acme', 'a//b', '-acme', '.acme', 'acme.', 'a/b.git']) {
      expect(isPath(path), path).toBe(false);
    }
    expect(isPath(`${deepest}/g20`)).toBe(false);
    expect(isPath('a b')).toBe(false);
  });

  it('accepts a Gitea or Forgejo organisation name, never a path', () => {
    const { isPath } = HOST_ORGANISATIONS.gitea;
    for (const name of ['acme', 'Acme-Inc', 'tea.house', 'x_y', 'x'.repeat(40)]) {
      expect(isPath(name), name).toBe(true);
    }
    for (const name of ['', 'acme/web', 'x'.repeat(41), 'a b', '.', '..']) {
      expect(isPath(name), name).toBe(false);
    }
  });

  it('compares every host organisation without case', () => {
    expect(normaliseOrganisationPath('Acme/Platform-Team')).toBe('acme/platform-team');
  });
});

const HOSTS = [
  { host: 'github', source: 'github-org', noun: 'GitHub organisation', path: 'acme' },
  { host: 'gitlab', source: 'gitlab-group', noun: 'GitLab group', path: 'acme/platform' },
  { host: 'gitea', source: 'gitea-org', noun: 'Gitea organisation', path: 'tea-house' },
] as const;

describe.each(HOSTS)('syncLinkedMemberships through $host', ({ host, source, noun, path }) => {
  it(`joins a member of the ${noun} as member, marked ${source}, with an audit line`, async () => {
    const { store, events, link, sync } = setup(host);
    const joined = await sync([link('org_a', path), link('org_b', 'other')], {
      [path]: 'member',
      other: 'not-member',
    });
    expect(joined).toEqual(['org_a']);
    expect(await store.findMember('org_a', 'usr_mate')).toEqual({
      orgId: 'org_a',
      userId: 'usr_mate',
      role: 'member',
      createdAt: NOW,
      source,
    });
    expect(await store.findMember('org_b', 'usr_mate')).toBeNull();
    expect(events).toEqual([
      { type: 'member.add', orgId: 'org_a', userId: 'usr_mate', role: 'member', via: source },
    ]);
  });

  it('leaves an existing member as they are: no new role, no audit line', async () => {
    const { store, events, link, member, sync } = setup(host);
    await member('org_a', 'usr_mate', { role: 'admin' });
    expect(await sync([link('org_a', path)], { [path]: 'member' })).toEqual([]);
    expect((await store.findMember('org_a', 'usr_mate'))?.role).toBe('admin');
    expect(events).toEqual([]);
  });

  it(`removes a member who joined through the link once ${host} no longer lists them`, async () => {
    const { store, events, link, member, sync } = setup(host);
    await member('org_a', 'usr_owner', { role: 'owner' });
    await member('org_a', 'usr_mate', { source });
    expect(await sync([link('org_a', path)], { [path]: 'not-member' })).toEqual([]);
    expect(await store.findMember('org_a', 'usr_mate')).toBeNull();
    expect(events).toEqual([
      { type: 'member.remove', orgId: 'org_a', userId: 'usr_mate', by: host, via: source },
    ]);
  });

  it('keeps a member who joined another way (an invite, another host) when the host does not list them', async () => {
    const { store, events, link, member, sync } = setup(host);
    await member('org_a', 'usr_mate');
    const other = HOSTS.find((each) => each.host !== host)?.source;
    await member('org_b', 'usr_mate', { source: other });
    await sync([link('org_a', path), link('org_b', 'beta')], {
      [path]: 'not-member',
      beta: 'not-member',
    });
    expect(await store.findMember('org_a', 'usr_mate')).not.toBeNull();
    expect(await store.findMember('org_b', 'usr_mate')).not.toBeNull();
    expect(events).toEqual([]);
  });

  it('changes nothing when the host could not say, and says so in the log', async () => {
    const { store, events, warnings, link, member, sync } = setup(host);
    await member('org_a', 'usr_owner', { role: 'owner' });
    await member('org_a', 'usr_mate', { source });
    expect(await sync([link('org_a', path), link('org_b', 'beta')], { [path]: 'unknown' })).toEqual(
      [],
    );
    expect(await store.findMember('org_a', 'usr_mate')).not.toBeNull();
    expect(await store.findMember('org_b', 'usr_mate')).toBeNull();
    expect(events).toEqual([]);
    expect(warnings).toEqual([
      `[oauth] ${host}: the membership of usr_mate in the linked ${noun} ${path} could not be checked; it stays as it was`,
      `[oauth] ${host}: the membership of usr_mate in the linked ${noun} beta could not be checked; it stays as it was`,
    ]);
  });

  it('keeps the last owner even when they joined through the link and left the host', async () => {
    const { store, warnings, link, member, sync } = setup(host);
    await member('org_a', 'usr_mate', { role: 'owner', source });
    await sync([link('org_a', path)], { [path]: 'not-member' });
    expect((await store.findMember('org_a', 'usr_mate'))?.role).toBe('owner');
    expect(warnings).toEqual([
      `[oauth] ${host}: usr_mate left the ${noun} ${path} but stays the last owner of org_a`,
    ]);
  });

  it("ignores a link to another host's organisation of the same name", async () => {
    const { store, events, link, sync } = setup(host);
    const elsewhere = HOSTS.find((each) => each.host !== host)?.host ?? host;
    expect(await sync([link('org_a', path, elsewhere)], { [path]: 'member' })).toEqual([]);
    expect(await store.findMember('org_a', 'usr_mate')).toBeNull();
    expect(events).toEqual([]);
  });
});
