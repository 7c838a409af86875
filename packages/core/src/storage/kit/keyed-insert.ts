import { wholeSeconds } from '../../time/timestamp.js';
import {
  type ExecutionRecord,
  type IdempotencyKeyClaim,
  type IdempotentExecution,
  type KeyedInsertResult,
  StoreConflictError,
} from '../store.js';

/** A stored idempotency key, live or dead, with the execution it points at. */
export interface StoredIdempotencyKey {
  requestDigest: string;
  expiresAt: Date;
  record: ExecutionRecord;
}

/** How often a keyed insert that met a dead key deletes it and tries again. */
export const KEYED_INSERT_ATTEMPTS = 3;

/** The key's execution when the key is still live at `now` (whole seconds), else null. */
export function liveExecution(
  key: StoredIdempotencyKey | null,
  now: Date,
): IdempotentExecution | null {
  if (key === null || key.expiresAt.getTime() <= wholeSeconds(now).getTime()) return null;
  return { requestDigest: key.requestDigest, record: key.record };
}

/** The dialect's steps of `insertKeyedExecution`. */
export interface KeyedInsertSteps {
  /** Writes the key, the execution and its counter in one transaction, or nothing. */
  insert(): Promise<void>;
  /** The organisation's key as stored, live or dead. */
  findKey(): Promise<StoredIdempotencyKey | null>;
  /** Deletes the key when it is dead at the claim's instant. */
  deleteDeadKey(): Promise<void>;
  /** The dialect's classifier of unique-key violations. */
  isDuplicateKey(error: unknown): boolean;
}

/**
 * `Store.insertKeyedExecution` over a dialect's steps: insert; on a duplicate key, answer
 * with the live key's execution, or delete the dead key and try again (at most
 * {@link KEYED_INSERT_ATTEMPTS} inserts); a duplicate with no key is a duplicate execution id.
 */
export async function insertKeyedExecution(
  claim: IdempotencyKeyClaim,
  steps: KeyedInsertSteps,
): Promise<KeyedInsertResult> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await steps.insert();
      return { inserted: true };
    } catch (error) {
      if (!steps.isDuplicateKey(error)) throw error;
      const existing = await steps.findKey();
      if (existing === null) throw new StoreConflictError('execution id already exists');
      const live = liveExecution(existing, claim.createdAt);
      if (live !== null) return { inserted: false, ...live };
      if (attempt >= KEYED_INSERT_ATTEMPTS) throw error;
      await steps.deleteDeadKey();
    }
  }
}
