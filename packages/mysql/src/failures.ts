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

/** The fields of a mysql2 error this module reads. */
interface DriverError {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
}

const ER_DUP_ENTRY = 1062;
const ER_LOCK_DEADLOCK = 1213;

/**
 * The driver's own error under any wrappers: drizzle wraps it in an error whose message
 * holds the SQL text and its parameters, which must not reach a log line.
 */
export function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 10; depth += 1) {
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) return current;
    current = cause;
  }
  return current;
}

const errnoOf = (error: unknown): unknown => (rootCause(error) as DriverError | null)?.errno;

/** True for a unique or primary key violation. */
export const isDuplicateKey = (error: unknown): boolean => errnoOf(error) === ER_DUP_ENTRY;

/** True when the server chose this transaction as a deadlock victim: retrying is safe. */
export const isDeadlock = (error: unknown): boolean => errnoOf(error) === ER_LOCK_DEADLOCK;

/** The driver's error code, or the error's name when it has none. */
export function errorCode(error: unknown): string {
  const cause = rootCause(error) as DriverError | null;
  if (typeof cause?.code === 'string' && cause.code !== '') return cause.code;
  return cause instanceof Error ? cause.name : 'UNKNOWN';
}

/**
 * The log line for an infrastructure failure: component prefix, operation, driver code and
 * the driver's message (never drizzle's, which embeds the query), with every secret
 * (password, connection URL) replaced by `***`.
 */
export function failureLine(
  component: StoreComponent,
  operation: string,
  error: unknown,
  secrets: readonly string[],
): string {
  const cause = rootCause(error) as DriverError | null;
  const detail = typeof cause?.message === 'string' ? cause.message : String(cause);
  const line = `[${component}] ${operation} failed: ${errorCode(error)}: ${detail}`;
  return redact(line, secrets);
}

/** Replaces every occurrence of each non-empty secret, longest first, by `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  return [...secrets]
    .filter((secret) => secret !== '')
    .sort((a, b) => b.length - a.length)
    .reduce((redacted, secret) => redacted.split(secret).join('***'), text);
}
