import type { Invite, Member, Role } from '@covgate/client';

/** The roles, most rights first, as the role pickers list them. */
export const ROLES: readonly Role[] = ['owner', 'admin', 'member'];

/** What each role may do, in a few words (the role pickers and the members page say it). */
export const ROLE_RIGHTS: Record<Role, string> = {
  owner: 'members, invites and tokens',
  admin: 'API tokens',
  member: 'reads repositories and runs',
};

/** Whether the role manages the organisation's API tokens (the API refuses `member`). */
export function canManageTokens(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}

/** Whether the role manages members and invites (owners only). */
export function canManageMembers(role: Role): boolean {
  return role === 'owner';
}

/** How a member is named: the code-host login when covgate knows it, else the user id. */
export function memberName(member: Pick<Member, 'login' | 'user_id'>): string {
  return member.login ?? member.user_id;
}

/** Whether `userId` is the organisation's only owner (who cannot leave or be demoted). */
export function isLastOwner(members: readonly Pick<Member, 'role' | 'user_id'>[], userId: string) {
  const owners = members.filter((member) => member.role === 'owner');
  return owners.length === 1 && owners[0]?.user_id === userId;
}

/** Pending invites first (newest first, as the API lists them), then the others. */
export function arrangeInvites<T extends Pick<Invite, 'status'>>(invites: readonly T[]): T[] {
  return [
    ...invites.filter((invite) => invite.status === 'pending'),
    ...invites.filter((invite) => invite.status !== 'pending'),
  ];
}
