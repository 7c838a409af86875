import { compareOldestFirst } from '../record-order.js';
import { StoreConflictError, type TokenRecord, type TokenStore } from '../store.js';
import { copy, copyOrNull } from './copy.js';
import type { MemoryTables } from './tables.js';

/** The memory store's API tokens. */
export function memoryTokens(t: MemoryTables): TokenStore {
  const add = (token: TokenRecord): void => {
    if (t.tokens.has(token.id)) {
      throw new StoreConflictError(`token id already exists: ${token.id}`);
    }
    t.tokens.set(token.id, copy(token));
    let orgTokens = t.tokenIdsByOrg.get(token.orgId);
    if (!orgTokens) {
      orgTokens = new Set();
      t.tokenIdsByOrg.set(token.orgId, orgTokens);
    }
    orgTokens.add(token.id);
  };

  return {
    async insertToken(token) {
      add(token);
    },

    async findTokenById(id) {
      return copyOrNull(t.tokens.get(id));
    },

    async listTokensByOrg(orgId) {
      const ids = t.tokenIdsByOrg.get(orgId) ?? new Set<string>();
      return [...ids]
        .map((id) => t.tokens.get(id)!)
        .sort((a, b) => compareOldestFirst(b, a))
        .map(copy);
    },

    async updateToken(id, patch) {
      const token = t.tokens.get(id);
      if (!token) return null;
      if (patch.name !== undefined) token.name = patch.name;
      if (patch.scopes !== undefined) token.scopes = [...patch.scopes];
      return copy(token);
    },

    async revokeToken(id) {
      const token = t.tokens.get(id);
      if (!token) return false;
      token.status = 'revoked';
      return true;
    },

    async rotateToken(oldId, replacement, gracePeriodEndsAt) {
      const old = t.tokens.get(oldId);
      if (old?.status !== 'active') return false;
      add(replacement);
      old.status = 'rotating';
      old.gracePeriodEndsAt = new Date(gracePeriodEndsAt);
      return true;
    },

    async touchToken(id, at) {
      const token = t.tokens.get(id);
      if (token) token.lastUsedAt = new Date(at);
    },

    async replaceTokenHash(id, expectedHash, newHash) {
      const token = t.tokens.get(id);
      if (!token || token.hash !== expectedHash) return false;
      token.hash = newHash;
      return true;
    },
  };
}
