import { wholeSeconds } from '../../time/timestamp.js';
import { compareOldestFirst } from '../record-order.js';
import { makerMayStillInvite } from '../records/invites.js';
import type { InviteStore, Membership } from '../store.js';
import { copy, copyOrNull } from './copy.js';
import { putMember } from './memberships.js';
import type { MemoryTables } from './tables.js';

/** The memory store's invites to organisations. */
export function memoryInvites(t: MemoryTables): InviteStore {
  return {
    async insertInvite(invite) {
      t.invites.insert(copy(invite));
    },

    async findInviteById(id) {
      return copyOrNull(t.invites.byId(id));
    },

    async findInviteByTokenHash(tokenHash) {
      return copyOrNull(t.invites.byTokenHash(tokenHash));
    },

    async listInvites(orgId) {
      return [...t.invites.values()]
        .filter((invite) => invite.orgId === orgId)
        .sort((a, b) => compareOldestFirst(b, a))
        .map(copy);
    },

    async revokeInvite(id, at) {
      const invite = t.invites.byId(id);
      if (!invite) return 'unknown';
      if (invite.acceptedAt !== null) return 'accepted';
      if (invite.revokedAt !== null) return 'already-revoked';
      invite.revokedAt = wholeSeconds(at);
      return 'revoked';
    },

    async acceptInvite(tokenHash, userId, at) {
      const invite = t.invites.byTokenHash(tokenHash);
      if (
        !invite ||
        invite.acceptedAt !== null ||
        invite.revokedAt !== null ||
        invite.expiresAt.getTime() <= at.getTime()
      ) {
        return { outcome: 'refused' };
      }
      const members = t.members.get(invite.orgId);
      if (!makerMayStillInvite(members?.get(invite.createdBy) ?? null)) {
        return { outcome: 'maker-lost-right', invite: copy(invite) };
      }
      const existing = members?.get(userId);
      if (existing) {
        return { outcome: 'already-member', invite: copy(invite), member: copy(existing) };
      }
      const member: Membership = {
        orgId: invite.orgId,
        userId,
        role: invite.role,
        createdAt: wholeSeconds(at),
      };
      // No await between the checks and the writes: concurrent calls cannot interleave.
      putMember(t, member);
      invite.acceptedBy = userId;
      invite.acceptedAt = wholeSeconds(at);
      return { outcome: 'accepted', invite: copy(invite), member };
    },
  };
}
