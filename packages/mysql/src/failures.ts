import { StoreDriverError } from '@covgate/core';
import { rootCause, type StoreComponent, type StoreLogger } from '@covgate/core/storage-kit';

export type { StoreComponent, StoreLogger };

/**
 * Thrown for infrastructure failures (connection lost, server error...). The details went to
 * the store's logger, so the API does not log it again; its message and `code` are those of
 * {@link StoreDriverError}: the component, the operation and the driver's code only.
 */
export class MySqlStoreError extends StoreDriverError {
  override readonly name = 'MySqlStoreError';
}

const ER_DUP_ENTRY = 1062;
const ER_LOCK_DEADLOCK = 1213;

const errnoOf = (error: unknown): unknown =>
  (rootCause(error) as { errno?: unknown } | null)?.errno;

/** True for a unique or primary key violation. */
export const isDuplicateKey = (error: unknown): boolean => errnoOf(error) === ER_DUP_ENTRY;

/** mysql2's message when the pool's wait queue (`queueLimit`) is full: it carries no code. */
const QUEUE_FULL_MESSAGE = 'Queue limit reached.';

/** `POOL_QUEUE_FULL` when the pool refused a call because its wait queue is full. */
export const overloadCode = (error: unknown): string | undefined =>
  (rootCause(error) as { message?: unknown } | null)?.message === QUEUE_FULL_MESSAGE
    ? 'POOL_QUEUE_FULL'
    : undefined;

/** True when the server chose this transaction as a deadlock victim: retrying is safe. */
export const isDeadlock = (error: unknown): boolean => errnoOf(error) === ER_LOCK_DEADLOCK;
