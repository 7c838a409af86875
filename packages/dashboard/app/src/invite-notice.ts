import type { CurrentSession } from '@covgate/client';

/** The query parameter the API adds to the dashboard's URL after an invite (`joined`, `already-member`). */
export const INVITE_PARAMETER = 'invite';

/** What the API said of an invite in the dashboard's URL, or null for none (or one it does not know). */
export function inviteOutcomeIn(search: string): 'joined' | 'already-member' | null {
  const value = new URLSearchParams(search).get(INVITE_PARAMETER);
  return value === 'joined' || value === 'already-member' ? value : null;
}

/** `search` without the invite parameter (`''` when nothing is left), for `history.replaceState`. */
export function searchWithoutInvite(search: string): string {
  const params = new URLSearchParams(search);
  params.delete(INVITE_PARAMETER);
  const rest = params.toString();
  return rest === '' ? '' : `?${rest}`;
}

/**
 * The sentence confirming an invite to the person who followed it: the session acts for the
 * invite's organisation (the API moved it there), named as its members know it.
 */
export function inviteNotice(
  outcome: 'joined' | 'already-member',
  session: Pick<CurrentSession, 'org' | 'org_id' | 'role' | 'organisations'>,
): string {
  const name = session.organisations.find((org) => org.org_id === session.org_id)?.name;
  const org = name && name !== session.org ? `${name} (${session.org})` : session.org;
  return outcome === 'joined'
    ? `You joined ${org} as ${session.role}.`
    : `You were already a member of ${org}, as ${session.role}.`;
}
