import { StoreConflictError, type UserStore } from '../store.js';
import { copy, copyOrNull } from './copy.js';
import { type MemoryTables, pairKey } from './tables.js';

/** The memory store's users. */
export function memoryUsers(t: MemoryTables): UserStore {
  return {
    async findOrCreateUser(candidate) {
      const identity = pairKey(candidate.provider, candidate.externalId);
      const existingId = t.userIdByIdentity.get(identity);
      const existing = existingId === undefined ? undefined : t.users.get(existingId);
      if (existing) return copy(existing);
      if (t.users.has(candidate.id)) {
        throw new StoreConflictError(`user id already exists: ${candidate.id}`);
      }
      t.users.set(candidate.id, copy(candidate));
      t.userIdByIdentity.set(identity, candidate.id);
      return copy(candidate);
    },

    async findUserById(id) {
      return copyOrNull(t.users.get(id));
    },
  };
}
