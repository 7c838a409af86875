import { StoreFailureError } from '@covgate/core';
import { rootCause, type StoreComponent, type StoreLogger } from '@covgate/core/storage-kit';

export type { StoreComponent, StoreLogger };

/**
 * Thrown for infrastructure failures (connection lost, server error...). Its message names
 * the component, the operation and the driver's error code only: never a host name, a query,
 * a parameter or a credential, so it is safe for any layer to show or log. The details went
 * to the store's logger, so the API does not log it again.
 */
export class MySqlStoreError extends StoreFailureError {
  /** Driver or server error code, such as `ECONNREFUSED` or `ER_LOCK_WAIT_TIMEOUT`. */
  readonly code: string;

  constructor(component: StoreComponent, operation: string, code: string) {
    super(`[${component}] ${operation} failed: ${code}`);
    this.name = 'MySqlStoreError';
    this.code = code;
  }
}

const ER_DUP_ENTRY = 1062;
const ER_LOCK_DEADLOCK = 1213;

const errnoOf = (error: unknown): unknown =>
  (rootCause(error) as { errno?: unknown } | null)?.errno;

/** True for a unique or primary key violation. */
export const isDuplicateKey = (error: unknown): boolean => errnoOf(error) === ER_DUP_ENTRY;

/** True when the server chose this transaction as a deadlock victim: retrying is safe. */
export const isDeadlock = (error: unknown): boolean => errnoOf(error) === ER_LOCK_DEADLOCK;
