import { StoreConflictError, StoreFailureError, StoreOverloadError } from '../store.js';
import { DeadlineExceededError, withDeadline } from './deadline.js';
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
  /**
   * The dialect's classifier of overload: the code to report (`POOL_QUEUE_FULL`) when a
   * driver error means the store cannot take the call now (its pool's wait queue is full),
   * else undefined. A passed deadline is always an overload.
   */
  overloadCode?(error: unknown): string | undefined;
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
 * `StoreConflictError` is never logged: it is an answer, not a failure. An overload (a passed
 * deadline, or what `overloadCode` recognises) throws {@link StoreOverloadError} and is
 * logged once per component when it starts, with the failure's line, and once when a call of
 * that component succeeds again, with how many calls failed meanwhile.
 */
export function createStoreGuard(options: StoreGuardOptions): StoreGuard {
  const { logger, isDuplicateKey, failure, secrets = [], deadlineMs } = options;
  if (deadlineMs !== undefined && (!Number.isInteger(deadlineMs) || deadlineMs < 1)) {
    throw new Error('deadlineMs must be a positive integer');
  }
  /** Calls refused by overload since it started, per component; absent: not overloaded. */
  const overloaded = new Map<StoreComponent, number>();
  const overloadCode = (error: unknown): string | undefined =>
    error instanceof DeadlineExceededError ? error.code : options.overloadCode?.(error);

  return async (component, operation, work, conflict) => {
    let result: Awaited<ReturnType<typeof work>>;
    try {
      result = await (deadlineMs === undefined ? work() : withDeadline(deadlineMs, work));
    } catch (error) {
      if (error instanceof StoreConflictError || error instanceof StoreFailureError) throw error;
      if (conflict !== undefined && isDuplicateKey(error)) throw new StoreConflictError(conflict);
      const code = overloadCode(error);
      if (code === undefined) {
        logger.error(failureLine(component, operation, error, secrets));
        throw failure(component, operation, errorCode(error));
      }
      const refused = overloaded.get(component);
      if (refused === undefined) {
        logger.error(
          `${failureLine(component, operation, error, secrets)}; the store is overloaded: answering 503 until a call succeeds again`,
        );
      }
      overloaded.set(component, (refused ?? 0) + 1);
      throw new StoreOverloadError(component, operation, code);
    }
    const refused = overloaded.get(component);
    if (refused !== undefined) {
      overloaded.delete(component);
      (logger.info ?? logger.error).call(
        logger,
        `[${component}] store calls succeed again after an overload; ${refused} answered 503`,
      );
    }
    return result;
  };
}
