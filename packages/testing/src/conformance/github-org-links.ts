import type { GithubOrgLink } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { FIXTURE_TIME, newPrefixedId, randomSuffix, secondsAfter } from '../fixtures.js';
import { givenOrganisation } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/** A GitHub organisation login no other test uses. */
function githubOrg(): string {
  return `gh-${randomSuffix()}`;
}

/**
 * Conformance tests of `GithubOrgLinkStore` and of a membership's `source`; `peer` is a second
 * store on the same data when the suite has one, else the store under test.
 */
export function describeGithubOrgLinks(store: StoreUnderTest, peer: StoreUnderTest): void {
  const link = (orgId: string, overrides: Partial<GithubOrgLink> = {}): GithubOrgLink => ({
    orgId,
    githubOrg: githubOrg(),
    linkedBy: newPrefixedId('usr_'),
    linkedAt: FIXTURE_TIME,
    ...overrides,
  });

  describe('GitHub organisation links', () => {
    it('links an organisation, finds and lists the link with every field, replaces and removes it', async () => {
      const orgId = await givenOrganisation(store());
      const first = link(orgId);

      expect(await store().findGithubOrgLink(orgId)).toBeNull();
      expect(await store().linkGithubOrg(first)).toBe('done');
      expect(await store().findGithubOrgLink(orgId)).toEqual(first);
      expect(await peer().listGithubOrgLinks()).toContainEqual(first);

      const second = link(orgId, { linkedAt: secondsAfter(FIXTURE_TIME, 60) });
      expect(await store().linkGithubOrg(second)).toBe('done');
      expect(await store().findGithubOrgLink(orgId)).toEqual(second);
      const links = await store().listGithubOrgLinks();
      expect(links.filter((each) => each.orgId === orgId)).toEqual([second]);
      expect(links.some((each) => each.githubOrg === first.githubOrg)).toBe(false);

      expect(await store().unlinkGithubOrg(orgId)).toBe(true);
      expect(await store().unlinkGithubOrg(orgId)).toBe(false);
      expect(await store().findGithubOrgLink(orgId)).toBeNull();
    });

    it('refuses a GitHub organisation linked to another organisation, leaving both as they were', async () => {
      const holder = await givenOrganisation(store());
      const other = await givenOrganisation(store());
      const held = link(holder);
      const before = link(other);
      await store().linkGithubOrg(held);
      await store().linkGithubOrg(before);

      const taking = link(other, { githubOrg: held.githubOrg, linkedBy: newPrefixedId('usr_') });
      expect(await store().linkGithubOrg(taking)).toBe('taken');

      expect(await store().findGithubOrgLink(holder)).toEqual(held);
      expect(await store().findGithubOrgLink(other)).toEqual(before);
    });

    it('of two organisations linking one GitHub organisation at once, exactly one wins', async () => {
      const [a, b] = [await givenOrganisation(store()), await givenOrganisation(store())];
      const shared = githubOrg();
      const results = await Promise.all([
        store().linkGithubOrg(link(a, { githubOrg: shared })),
        peer().linkGithubOrg(link(b, { githubOrg: shared })),
      ]);
      expect([...results].sort()).toEqual(['done', 'taken']);
      const holders = (await store().listGithubOrgLinks()).filter(
        (each) => each.githubOrg === shared,
      );
      expect(holders).toHaveLength(1);
    });

    it('keeps how a member joined: source github-org, or none, in find and list', async () => {
      const orgId = await givenOrganisation(store());
      const linked = {
        orgId,
        userId: newPrefixedId('usr_'),
        role: 'member' as const,
        createdAt: FIXTURE_TIME,
        source: 'github-org' as const,
      };
      const plain = {
        orgId,
        userId: newPrefixedId('usr_'),
        role: 'admin' as const,
        createdAt: secondsAfter(FIXTURE_TIME, 1),
      };
      expect(await store().addMember(linked)).toBe(true);
      expect(await store().addMember(plain)).toBe(true);

      expect(await peer().findMember(orgId, linked.userId)).toEqual(linked);
      const found = await peer().findMember(orgId, plain.userId);
      expect(found).toEqual(plain);
      expect(found).not.toHaveProperty('source');
      expect(await store().listMembers(orgId)).toEqual([
        { ...linked, login: null },
        { ...plain, login: null },
      ]);
    });
  });
}
