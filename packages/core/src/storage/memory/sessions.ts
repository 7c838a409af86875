import type { SessionStore } from '../store.js';
import { copy, copyOrNull } from './copy.js';
import type { MemoryTables } from './tables.js';

/** The memory store's browser sessions. */
export function memorySessions(t: MemoryTables): SessionStore {
  return {
    async insertSession(session) {
      t.sessions.insert(copy(session));
    },

    async findSessionByTokenHash(tokenHash) {
      return copyOrNull(t.sessions.byTokenHash(tokenHash));
    },

    async findSessionById(id) {
      return copyOrNull(t.sessions.byId(id));
    },

    async deleteSession(id) {
      return t.sessions.delete(id);
    },

    async setSessionOrganisation(id, orgId) {
      const session = t.sessions.byId(id);
      if (!session) return false;
      session.orgId = orgId;
      return true;
    },
  };
}
