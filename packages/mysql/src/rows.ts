import type { TokenRecord } from '@covgate/core';
import { tokenTimestamps } from '@covgate/core/storage-kit';
import type { tokens } from './schema.js';

/** The `tokens` row of a token: scopes as a JSON array, timestamps in whole seconds. */
export function toTokenRow(token: TokenRecord): typeof tokens.$inferInsert {
  return { ...tokenTimestamps(token), scopes: JSON.stringify(token.scopes) };
}

/** The token of a `tokens` row; throws when its scopes column is not a JSON string array. */
export function toTokenRecord(row: typeof tokens.$inferSelect): TokenRecord {
  const scopes: unknown = JSON.parse(row.scopes);
  if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string')) {
    throw new Error(`token ${row.id} has malformed scopes`);
  }
  return { ...row, scopes };
}
