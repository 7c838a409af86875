import type { Organisation } from './organisations.js';

// Who belongs to which organisation, with which role.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/**
 * A user's role in an organisation: `owner` (members, invites, settings, tokens), `admin`
 * (tokens), `member` (reads).
 */
export type Role = 'owner' | 'admin' | 'member';

/** Every {@link Role}, from the most to the least allowed. */
export const ROLES = ['owner', 'admin', 'member'] as const satisfies readonly Role[];

/** A user's membership of an organisation. */
export interface Membership {
  orgId: string;
  /** A covgate user id (`usr_...`, or whatever id a frontend gave its sessions). */
  userId: string;
  role: Role;
  /** When the user joined. */
  createdAt: Date;
  /**
   * How the user joined when it was through the organisation's link to a code host (they leave
   * when the host no longer lists them); absent for any other way in.
   */
  source?: MembershipSource;
}

/**
 * How a membership came to be, when it matters later: through a linked GitHub organisation
 * (`github-org`), GitLab group (`gitlab-group`) or Gitea organisation (`gitea-org`).
 */
export type MembershipSource = 'github-org' | 'gitlab-group' | 'gitea-org';

/** Every {@link MembershipSource}. */
export const MEMBERSHIP_SOURCES = [
  'github-org',
  'gitlab-group',
  'gitea-org',
] as const satisfies readonly MembershipSource[];

/** A member as listed: the membership and the user's code-host login, when covgate knows it. */
export interface MemberListing extends Membership {
  login: string | null;
}

/** An organisation a user belongs to, with the user's role in it. */
export interface UserOrganisation {
  organisation: Organisation;
  role: Role;
}

/**
 * What a change of a membership did: `done`, `unknown` (no such member, nothing changed) or
 * `last-owner` (refused: the organisation would be left without an owner).
 */
export type MemberChange = 'done' | 'unknown' | 'last-owner';

/** Who belongs to which organisation, with which role. */
export interface MembershipStore {
  /**
   * Adds a membership; returns false, changing nothing, when the user already belongs to the
   * organisation (whatever the role).
   */
  addMember(member: Membership): Promise<boolean>;
  findMember(orgId: string, userId: string): Promise<Membership | null>;
  /**
   * The organisation's members, oldest first (`createdAt`, then `userId`), each with the
   * login of the user when a user row of that id exists (else null).
   */
  listMembers(orgId: string): Promise<MemberListing[]>;
  /** The organisations the user belongs to, by slug. */
  listUserOrganisations(userId: string): Promise<UserOrganisation[]>;
  /**
   * Sets a member's role, atomically refusing (`last-owner`, nothing changed) to take the
   * role `owner` from the organisation's only owner: of concurrent demotions of the last two
   * owners, one is refused.
   */
  changeMemberRole(orgId: string, userId: string, role: Role): Promise<MemberChange>;
  /** Removes a member, atomically refusing (`last-owner`) to remove the only owner. */
  removeMember(orgId: string, userId: string): Promise<MemberChange>;
}
