import type { AuditLogger } from '../audit/audit-sink.js';
import type { OrganisationMembership } from '../oauth/code-host.js';
import type { GithubOrgLink, Store } from '../storage/store.js';
import { type Clock, formatTimestamp, wholeSeconds } from '../time/timestamp.js';

/**
 * A GitHub organisation's login: 1 to 39 letters, digits and single inner hyphens (GitHub's
 * rule for account names).
 */
export const GITHUB_ORG_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

/** GitHub compares account names without case: links are stored in lower case. */
export function normaliseGithubOrg(login: string): string {
  return login.toLowerCase();
}

/**
 * The wire form of an organisation's GitHub link, as `GET /v1/organisation/github-link` and
 * `GET /v1/members` answer it.
 */
export function githubOrgLinkToJson(link: GithubOrgLink) {
  return {
    github_org: link.githubOrg,
    linked_by: link.linkedBy,
    linked_at: formatTimestamp(link.linkedAt),
  };
}

/** What {@link syncLinkedMemberships} works with. */
export interface LinkedMembershipDependencies {
  store: Pick<Store, 'addMember' | 'findMember' | 'removeMember'>;
  clock: Clock;
  audit: AuditLogger;
  logger: { warn(message: string): void };
}

/**
 * Applies what the code host said of the user's GitHub organisations to the organisations
 * linked to them: a member joins as `member` (marked `github-org`) when not a member yet; a
 * user GitHub no longer lists leaves the organisations they joined through the link (an owner
 * made by other means, or the last owner, stays); a membership GitHub could not confirm either
 * way is left as it is. Returns the organisations the user joined now.
 */
export async function syncLinkedMemberships(
  deps: LinkedMembershipDependencies,
  userId: string,
  links: readonly GithubOrgLink[],
  memberships: ReadonlyMap<string, OrganisationMembership>,
): Promise<string[]> {
  const joined: string[] = [];
  for (const link of links) {
    const state = memberships.get(link.githubOrg) ?? 'unknown';
    if (state === 'unknown') {
      deps.logger.warn(
        `[oauth] github: the membership of ${userId} in the linked GitHub organisation ${link.githubOrg} could not be checked; it stays as it was`,
      );
      continue;
    }
    const existing = await deps.store.findMember(link.orgId, userId);
    if (state === 'member') {
      if (existing) continue;
      const added = await deps.store.addMember({
        orgId: link.orgId,
        userId,
        role: 'member',
        createdAt: wholeSeconds(deps.clock.now()),
        source: 'github-org',
      });
      if (!added) continue;
      deps.audit.record({
        type: 'member.add',
        orgId: link.orgId,
        userId,
        role: 'member',
        via: 'github-org',
      });
      joined.push(link.orgId);
    } else if (existing?.source === 'github-org') {
      const change = await deps.store.removeMember(link.orgId, userId);
      if (change === 'done') {
        deps.audit.record({
          type: 'member.remove',
          orgId: link.orgId,
          userId,
          by: 'github',
          via: 'github-org',
        });
      } else if (change === 'last-owner') {
        deps.logger.warn(
          `[oauth] github: ${userId} left the GitHub organisation ${link.githubOrg} but stays the last owner of ${link.orgId}`,
        );
      }
    }
  }
  return joined;
}
