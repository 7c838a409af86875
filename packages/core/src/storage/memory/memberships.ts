import { wholeSeconds } from '../../time/timestamp.js';
import type { Membership, MembershipStore, UserOrganisation } from '../store.js';
import { byCodeUnit, copy, copyOrNull } from './copy.js';
import type { MemoryTables } from './tables.js';

/**
 * Adds `member` unless the user already belongs to the organisation (false then); shared with
 * invite acceptance, which adds the member in the same step.
 */
export function putMember(t: MemoryTables, member: Membership): boolean {
  let members = t.members.get(member.orgId);
  if (!members) {
    members = new Map();
    t.members.set(member.orgId, members);
  }
  if (members.has(member.userId)) return false;
  members.set(member.userId, { ...copy(member), createdAt: wholeSeconds(member.createdAt) });
  return true;
}

/** The memory store's memberships of organisations. */
export function memoryMemberships(t: MemoryTables): MembershipStore {
  /** Whether `member` is an owner and no other member of its organisation is. */
  const isLastOwner = (member: Membership): boolean => {
    if (member.role !== 'owner') return false;
    for (const other of t.members.get(member.orgId)?.values() ?? []) {
      if (other !== member && other.role === 'owner') return false;
    }
    return true;
  };

  return {
    async addMember(member) {
      return putMember(t, member);
    },

    async findMember(orgId, userId) {
      return copyOrNull(t.members.get(orgId)?.get(userId));
    },

    async listMembers(orgId) {
      return [...(t.members.get(orgId)?.values() ?? [])]
        .sort(
          (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || byCodeUnit(a.userId, b.userId),
        )
        .map((member) => ({ ...copy(member), login: t.users.get(member.userId)?.login ?? null }));
    },

    async listUserOrganisations(userId) {
      const found: UserOrganisation[] = [];
      for (const [orgId, members] of t.members) {
        const member = members.get(userId);
        const organisation = t.organisations.get(orgId);
        if (member && organisation) {
          found.push({ organisation: copy(organisation), role: member.role });
        }
      }
      return found.sort((a, b) => byCodeUnit(a.organisation.slug, b.organisation.slug));
    },

    async changeMemberRole(orgId, userId, role) {
      const member = t.members.get(orgId)?.get(userId);
      if (!member) return 'unknown';
      if (role !== 'owner' && isLastOwner(member)) return 'last-owner';
      member.role = role;
      return 'done';
    },

    async removeMember(orgId, userId) {
      const members = t.members.get(orgId);
      const member = members?.get(userId);
      if (!members || !member) return 'unknown';
      if (isLastOwner(member)) return 'last-owner';
      members.delete(userId);
      return 'done';
    },
  };
}
