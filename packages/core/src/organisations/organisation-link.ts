import type { AuditLogger } from '../audit/audit-sink.js';
import type { OrganisationMembership } from '../oauth/code-host.js';
import type { CodeHostKind, MembershipSource, OrganisationLink, Store } from '../storage/store.js';
import { type Clock, formatTimestamp, wholeSeconds } from '../time/timestamp.js';

/**
 * A GitHub organisation's login: 1 to 39 letters, digits and single inner hyphens (GitHub's
 * rule for account names).
 */
export const GITHUB_ORG_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

/** A GitLab group path segment: letters, digits, `_`, `-`, `.`; not starting with `-` or `.`, nor ending with `.`. */
const GITLAB_SEGMENT = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,253}[A-Za-z0-9_-])?$/;
/** GitLab nests groups 20 deep. */
const GITLAB_MAX_DEPTH = 20;
/** A Gitea or Forgejo organisation name: letters, digits, `_`, `-`, `.`, at most 40. */
const GITEA_NAME = /^[A-Za-z0-9_.-]{1,40}$/;

/** What covgate knows of one code host's organisations. */
export interface HostOrganisations {
  /** What the host calls one, for messages and logs: `GitHub organisation`, `GitLab group`. */
  noun: string;
  /** Whether `path` names one as the host allows (a GitLab group's full path may nest). */
  isPath(path: string): boolean;
  /** How a member who joins through a link to one is marked. */
  source: MembershipSource;
}

/** The organisations of each code host a covgate organisation can be linked to. */
export const HOST_ORGANISATIONS: Record<CodeHostKind, HostOrganisations> = {
  github: {
    noun: 'GitHub organisation',
    isPath: (path) => GITHUB_ORG_LOGIN.test(path),
    source: 'github-org',
  },
  gitlab: {
    noun: 'GitLab group',
    isPath: (path) => {
      const segments = path.split('/');
      return (
        path.length <= 1024 &&
        segments.length <= GITLAB_MAX_DEPTH &&
        segments.every(
          (segment) => GITLAB_SEGMENT.test(segment) && !/\.(?:git|atom)$/.test(segment),
        )
      );
    },
    source: 'gitlab-group',
  },
  gitea: {
    noun: 'Gitea organisation',
    isPath: (path) => GITEA_NAME.test(path) && path !== '.' && path !== '..',
    source: 'gitea-org',
  },
};

/** Every host compares organisation names and group paths without case: links keep lower case. */
export function normaliseOrganisationPath(path: string): string {
  return path.toLowerCase();
}

/**
 * The wire form of an organisation's link: `github` as `GET /v1/organisation/github-link`
 * answers it (`github_org`), `code-host` as `GET /v1/organisation/code-host-link` does
 * (`host`, `organisation`).
 */
export function organisationLinkToJson(link: OrganisationLink, view: 'github' | 'code-host') {
  return {
    ...(view === 'github'
      ? { github_org: link.organisation }
      : { host: link.host, organisation: link.organisation }),
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
 * Applies what `host` said of the user's organisations to the organisations linked to them
 * there: a member joins as `member` (marked with the host's source) when not a member yet; a
 * user the host no longer lists leaves the organisations they joined through the link (an
 * owner made by other means, or the last owner, stays); a membership the host could not
 * confirm either way is left as it is. Returns the organisations the user joined now.
 */
export async function syncLinkedMemberships(
  deps: LinkedMembershipDependencies,
  host: CodeHostKind,
  userId: string,
  links: readonly OrganisationLink[],
  memberships: ReadonlyMap<string, OrganisationMembership>,
): Promise<string[]> {
  const { noun, source } = HOST_ORGANISATIONS[host];
  const joined: string[] = [];
  for (const link of links) {
    if (link.host !== host) continue;
    const state = memberships.get(link.organisation) ?? 'unknown';
    if (state === 'unknown') {
      deps.logger.warn(
        `[oauth] ${host}: the membership of ${userId} in the linked ${noun} ${link.organisation} could not be checked; it stays as it was`,
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
        source,
      });
      if (!added) continue;
      deps.audit.record({
        type: 'member.add',
        orgId: link.orgId,
        userId,
        role: 'member',
        via: source,
      });
      joined.push(link.orgId);
    } else if (existing?.source === source) {
      const change = await deps.store.removeMember(link.orgId, userId);
      if (change === 'done') {
        deps.audit.record({
          type: 'member.remove',
          orgId: link.orgId,
          userId,
          by: host,
          via: source,
        });
      } else if (change === 'last-owner') {
        deps.logger.warn(
          `[oauth] ${host}: ${userId} left the ${noun} ${link.organisation} but stays the last owner of ${link.orgId}`,
        );
      }
    }
  }
  return joined;
}
