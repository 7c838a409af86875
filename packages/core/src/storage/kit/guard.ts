import { StoreConflictError, StoreFailureError } from '../store.js';
import { withDeadline } from './deadline.js';
import { errorCode, failureLine, type StoreComponent, type StoreLogger } from './failures.js';

/** What {@link createStoreGuard} needs to know about one store. */
export interface StoreGuardOptions {
  /** Receives the one line of each failure. */
  logger: StoreLogger;
  /** The dialect's classifier: true when a driver error is a unique or primary key violation. */
  isDuplicateKey(error: unknown): boolean;
  /**
   * The dialect's error for a failure already logged (`MySqlStoreError`...). Its message
   * should name the component, the operation and the code only.
   */
  failure(component: StoreComponent, operation: string, code: string): StoreFailureError;
  /** Texts replaced by `***` in log lines: passwords, connection URLs. */
  secrets?: readonly string[];
  /** Milliseconds one call may take before it fails with code `ETIMEDOUT`; none when absent. */
  deadlineMs?: number;
}

/**
 * Runs one store call: `work` under the deadline, a duplicate key turned into
 * `StoreConflictError(conflict)` when `conflict` is given, and any other failure logged once
 * and rethrown as the dialect's {@link StoreFailureError}.
 */
export type StoreGuard = <T>(
  component: StoreComponent,
  operation: string,
  work: () => Promise<T>,
  conflict?: string,
) => Promise<T>;

/**
 * Makes the guard every method of a SQL store runs through. Each failure is logged exactly
 * once: a `StoreFailureError` coming out of a nested guarded call was logged there and
 * passes through untouched, and the API does not log a `StoreFailureError` again.
 * `StoreConflictError` is never logged: it is an answer, not a failure.
 */
export function createStoreGuard(options: StoreGuardOptions): StoreGuard {
  const { logger, isDuplicateKey, failure, secrets = [], deadlineMs } = options;
  if (deadlineMs !== undefined && (!Number.isInteger(deadlineMs) || deadlineMs < 1)) {
    throw new Error('deadlineMs must be a positive integer');
  }
  return async (component, operation, work, conflict) => {
    try {
      return await (deadlineMs === undefined ? work() : withDeadline(deadlineMs, work));
    } catch (error) {
      if (error instanceof StoreConflictError || error instanceof StoreFailureError) throw error;
      if (conflict !== undefined && isDuplicateKey(error)) throw new StoreConflictError(conflict);
      logger.error(failureLine(component, operation, error, secrets));
      throw failure(component, operation, errorCode(error));
    }
  };
}
