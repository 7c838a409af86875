import { StoreFailureError } from '@covgate/core';

/**
 * Component prefixes of infrastructure log lines, the service's five. User look-ups happen
 * only while signing in, so they log as `sessions`.
 */
export type StoreComponent = 'organisations' | 'tokens' | 'sessions' | 'executions' | 'webhooks';

/** Receives one line per infrastructure failure. */
export interface StoreLogger {
  error(message: string): void;
}

/**
 * Thrown for infrastructure failures (disk full, file locked, corrupt database...). Its
 * message names the component, the operation and SQLite's error code only: never a query, a
 * parameter or a path, so it is safe for any layer to show or log. The details went to the
 * store's logger, so the API does not log it again.
 */
export class SqliteStoreError extends StoreFailureError {
  /** SQLite's error code, such as `SQLITE_BUSY` or `SQLITE_FULL`. */
  readonly code: string;

  constructor(component: StoreComponent, operation: string, code: string) {
    super(`[${component}] ${operation} failed: ${code}`);
    this.name = 'SqliteStoreError';
    this.code = code;
  }
}

/**
 * The client's own error under any wrappers (the first in the `cause` chain with a `code`,
 * else the innermost): drizzle wraps it in an error whose message holds the SQL text and its
 * parameters, which must not reach a log line.
 */
export function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 10; depth += 1) {
    if (typeof (current as { code?: unknown } | null)?.code === 'string') return current;
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) return current;
    current = cause;
  }
  return current;
}

/** SQLite's error code, or the error's name when it has none. */
export function errorCode(error: unknown): string {
  const cause = rootCause(error) as { code?: unknown } | null;
  if (typeof cause?.code === 'string' && cause.code !== '') return cause.code;
  return cause instanceof Error ? cause.name : 'UNKNOWN';
}

/** True for a primary key or unique index violation. */
export function isDuplicateKey(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** The log line of an infrastructure failure: prefix, operation, code and client message. */
export function failureLine(component: StoreComponent, operation: string, error: unknown): string {
  const cause = rootCause(error) as { message?: unknown } | null;
  const detail = typeof cause?.message === 'string' ? cause.message : String(cause);
  return `[${component}] ${operation} failed: ${errorCode(error)}: ${detail}`;
}
