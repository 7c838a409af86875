import type { AuditLogger } from '../audit/audit-sink.js';
import type { Membership, Role, Store } from '../storage/store.js';
import { type Clock, wholeSeconds } from '../time/timestamp.js';

const RANK: Readonly<Record<Role, number>> = { member: 0, admin: 1, owner: 2 };

/** Whether `role` allows what `minimum` allows (`owner` > `admin` > `member`). */
export function hasRole(role: Role, minimum: Role): boolean {
  return RANK[role] >= RANK[minimum];
}

/** What {@link joinOrganisation} works with. */
export interface JoinDependencies {
  store: Pick<Store, 'addMember' | 'findMember' | 'listMembers'>;
  clock: Clock;
  /** Receives `member.add` when the user joins. */
  audit: AuditLogger;
}

/**
 * The user's membership of the organisation, made when there is none: with `role` when given,
 * else `owner` for the organisation's first member and `member` for any later one. A member
 * keeps the role they have. Concurrent calls for one user end with one membership.
 */
export async function joinOrganisation(
  deps: JoinDependencies,
  orgId: string,
  userId: string,
  role?: Role,
): Promise<Membership> {
  const existing = await deps.store.findMember(orgId, userId);
  if (existing) return existing;
  const joining: Membership = {
    orgId,
    userId,
    role: role ?? ((await deps.store.listMembers(orgId)).length === 0 ? 'owner' : 'member'),
    createdAt: wholeSeconds(deps.clock.now()),
  };
  if (!(await deps.store.addMember(joining))) {
    // A concurrent call for the same user made it first.
    return (await deps.store.findMember(orgId, userId)) ?? joining;
  }
  deps.audit.record({ type: 'member.add', orgId, userId, role: joining.role });
  return joining;
}
