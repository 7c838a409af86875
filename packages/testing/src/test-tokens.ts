import { generateApiToken, type Store, type TokenHasher, type TokenRecord } from '@covgate/core';
import { buildTokenRecord } from './fixtures.js';

/** Options of {@link issueTestToken}. */
export interface IssueTestTokenOptions {
  /** The organisation the token belongs to; it should already be in the store. */
  orgId: string;
  /** Hashes the raw token: the API under test's hasher (same pepper), or it will not verify. */
  hasher: Pick<TokenHasher, 'hash'>;
  /** Default `['execute']`. Any list, including scopes the API itself would not grant. */
  scopes?: string[];
  /** Default `token <first 8 characters of the id>`. */
  name?: string;
  /** Default `FIXTURE_TIME`; pass the clock of the API under test for a token made "now". */
  createdAt?: Date;
}

/** A token written by {@link issueTestToken}. */
export interface IssuedTestToken {
  /** The 32-hex token id. */
  id: string;
  /** The raw `cvg_` token, to send as `Authorization: Bearer <token>`. */
  token: string;
  /** The record as inserted into the store. */
  record: TokenRecord;
}

/**
 * Makes a fresh API token and inserts its `active` record (built by {@link buildTokenRecord})
 * straight into `store`, bypassing `POST /v1/tokens`: for tests that need a working bearer
 * token without a session, or with scopes the API cannot grant.
 */
export async function issueTestToken(
  store: Pick<Store, 'insertToken'>,
  options: IssueTestTokenOptions,
): Promise<IssuedTestToken> {
  const { id, token } = generateApiToken();
  const record = buildTokenRecord({
    id,
    orgId: options.orgId,
    name: options.name ?? `token ${id.slice(0, 8)}`,
    hash: await options.hasher.hash(token),
    ...(options.scopes && { scopes: options.scopes }),
    ...(options.createdAt && { createdAt: options.createdAt }),
  });
  await store.insertToken(record);
  return { id, token, record };
}

/** `token` with its last hex digit changed: the same token id with a wrong secret. */
export function wrongSecretOf(token: string): string {
  return `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`;
}

/**
 * The `n`th of many different wrong secrets for `token`'s id (its last 4 hex replaced by `n`).
 * Identical guesses in flight together share one verification; distinct ones each reserve
 * their own throttle failure, which is what tests of concurrent guessing need.
 */
export function guessAt(token: string, n: number): string {
  const guess = `${token.slice(0, -4)}${n.toString(16).padStart(4, '0')}`;
  return guess === token ? wrongSecretOf(token) : guess;
}
