import type { CodeHostKind, Membership, MembershipSource, OrganisationLink } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { FIXTURE_TIME, newPrefixedId, randomSuffix, secondsAfter } from '../fixtures.js';
import { givenOrganisation } from './parents.js';
import type { StoreUnderTest } from './store-under-test.js';

/** A host organisation's path no other test uses: a GitLab one nested, as groups may be. */
function hostOrganisation(host: CodeHostKind = 'github'): string {
  return host === 'gitlab' ? `top-${randomSuffix()}/sub.group/team` : `${host}-${randomSuffix()}`;
}

/**
 * Conformance tests of `OrganisationLinkStore` and of a membership's `source`; `peer` is a
 * second store on the same data when the suite has one, else the store under test.
 */
export function describeOrganisationLinks(store: StoreUnderTest, peer: StoreUnderTest): void {
  const link = (orgId: string, overrides: Partial<OrganisationLink> = {}): OrganisationLink => {
    const host = overrides.host ?? 'github';
    return {
      orgId,
      host,
      organisation: hostOrganisation(host),
      linkedBy: newPrefixedId('usr_'),
      linkedAt: FIXTURE_TIME,
      ...overrides,
    };
  };
  const linksTo = async (host: CodeHostKind, orgId: string) =>
    (await store().listOrganisationLinks(host)).filter((each) => each.orgId === orgId);

  describe('organisation links', () => {
    it('links an organisation, finds and lists the link with every field, replaces and removes it', async () => {
      const orgId = await givenOrganisation(store());
      const first = link(orgId);

      expect(await store().findOrganisationLink(orgId)).toBeNull();
      expect(await store().linkOrganisation(first)).toBe('done');
      expect(await store().findOrganisationLink(orgId)).toEqual(first);
      expect(await peer().listOrganisationLinks('github')).toContainEqual(first);

      const second = link(orgId, { linkedAt: secondsAfter(FIXTURE_TIME, 60) });
      expect(await store().linkOrganisation(second)).toBe('done');
      expect(await store().findOrganisationLink(orgId)).toEqual(second);
      const links = await store().listOrganisationLinks('github');
      expect(links.filter((each) => each.orgId === orgId)).toEqual([second]);
      expect(links.some((each) => each.organisation === first.organisation)).toBe(false);

      expect(await store().unlinkOrganisation(orgId)).toBe(true);
      expect(await store().unlinkOrganisation(orgId)).toBe(false);
      expect(await store().findOrganisationLink(orgId)).toBeNull();
    });

    it('lists the links of one host only, by path, and moves a link from one host to another', async () => {
      const orgId = await givenOrganisation(store());
      const group = link(orgId, { host: 'gitlab' });
      expect(await store().linkOrganisation(group)).toBe('done');
      expect(await peer().findOrganisationLink(orgId)).toEqual(group);
      expect(await linksTo('gitlab', orgId)).toEqual([group]);
      expect(await linksTo('github', orgId)).toEqual([]);
      expect(await linksTo('gitea', orgId)).toEqual([]);

      const tea = link(orgId, { host: 'gitea', linkedAt: secondsAfter(FIXTURE_TIME, 5) });
      expect(await peer().linkOrganisation(tea)).toBe('done');
      expect(await store().findOrganisationLink(orgId)).toEqual(tea);
      expect(await linksTo('gitlab', orgId)).toEqual([]);
      expect(await linksTo('gitea', orgId)).toEqual([tea]);

      const suffix = randomSuffix();
      for (const organisation of [`b-${suffix}`, `a-${suffix}`]) {
        await store().linkOrganisation(
          link(await givenOrganisation(store()), { host: 'gitea', organisation }),
        );
      }
      const listed = (await store().listOrganisationLinks('gitea')).map(
        (each) => each.organisation,
      );
      expect(listed.filter((path) => path.endsWith(suffix))).toEqual([
        `a-${suffix}`,
        `b-${suffix}`,
      ]);
    });

    it('refuses a host organisation linked to another organisation, leaving both as they were', async () => {
      const holder = await givenOrganisation(store());
      const other = await givenOrganisation(store());
      const held = link(holder, { host: 'gitlab' });
      const before = link(other);
      await store().linkOrganisation(held);
      await store().linkOrganisation(before);

      const taking = link(other, {
        host: 'gitlab',
        organisation: held.organisation,
        linkedBy: newPrefixedId('usr_'),
      });
      expect(await store().linkOrganisation(taking)).toBe('taken');

      expect(await store().findOrganisationLink(holder)).toEqual(held);
      expect(await store().findOrganisationLink(other)).toEqual(before);
    });

    it('lets one path be linked once on each host', async () => {
      const path = `shared-${randomSuffix()}`;
      const [a, b] = [await givenOrganisation(store()), await givenOrganisation(store())];
      const onGithub = link(a, { host: 'github', organisation: path });
      const onGitea = link(b, { host: 'gitea', organisation: path });
      expect(await store().linkOrganisation(onGithub)).toBe('done');
      expect(await store().linkOrganisation(onGitea)).toBe('done');
      expect(await linksTo('github', a)).toEqual([onGithub]);
      expect(await linksTo('gitea', b)).toEqual([onGitea]);
    });

    it('of two organisations linking one host organisation at once, exactly one wins', async () => {
      const [a, b] = [await givenOrganisation(store()), await givenOrganisation(store())];
      const shared = hostOrganisation('gitlab');
      const results = await Promise.all([
        store().linkOrganisation(link(a, { host: 'gitlab', organisation: shared })),
        peer().linkOrganisation(link(b, { host: 'gitlab', organisation: shared })),
      ]);
      expect([...results].sort()).toEqual(['done', 'taken']);
      const holders = (await store().listOrganisationLinks('gitlab')).filter(
        (each) => each.organisation === shared,
      );
      expect(holders).toHaveLength(1);
    });

    it('keeps how a member joined: through a GitHub, GitLab or Gitea link, or none, in find and list', async () => {
      const orgId = await givenOrganisation(store());
      const sources: MembershipSource[] = ['github-org', 'gitlab-group', 'gitea-org'];
      const linked: Membership[] = sources.map((source, i) => ({
        orgId,
        userId: newPrefixedId('usr_'),
        role: 'member',
        createdAt: secondsAfter(FIXTURE_TIME, i),
        source,
      }));
      const plain: Membership = {
        orgId,
        userId: newPrefixedId('usr_'),
        role: 'admin',
        createdAt: secondsAfter(FIXTURE_TIME, 10),
      };
      for (const member of [...linked, plain]) expect(await store().addMember(member)).toBe(true);

      for (const member of linked) {
        expect(await peer().findMember(orgId, member.userId)).toEqual(member);
      }
      const found = await peer().findMember(orgId, plain.userId);
      expect(found).toEqual(plain);
      expect(found).not.toHaveProperty('source');
      expect(await store().listMembers(orgId)).toEqual(
        [...linked, plain].map((member) => ({ ...member, login: null })),
      );
    });
  });
}
