/**
 * Component prefixes of a store's infrastructure log lines, the service's five. User
 * look-ups happen only while signing in, so they log as `sessions`.
 */
export type StoreComponent =
  | 'organisations'
  | 'tokens'
  | 'sessions'
  | 'executions'
  | 'outbox'
  | 'webhooks';

/** Receives one line per infrastructure failure. */
export interface StoreLogger {
  error(message: string): void;
  /** Receives the line saying an overload has ended; without it, `error` does. */
  info?(message: string): void;
}

/** The fields of a driver error the kit reads. */
interface DriverError {
  code?: unknown;
  message?: unknown;
}

const hasCode = (error: unknown): boolean => {
  const code = (error as DriverError | null)?.code;
  return typeof code === 'string' && code !== '';
};

/**
 * The driver's own error under any wrappers: the first error in the `cause` chain with a
 * string `code`, else the innermost. ORMs such as drizzle wrap it in an error whose message
 * holds the SQL text and its parameters, which must not reach a log line.
 */
export function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 10; depth += 1) {
    if (hasCode(current)) return current;
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) return current;
    current = cause;
  }
  return current;
}

/** The driver's error code (`ECONNREFUSED`, `SQLITE_BUSY`...), or the error's name when it has none. */
export function errorCode(error: unknown): string {
  const cause = rootCause(error) as DriverError | null;
  if (hasCode(cause)) return cause?.code as string;
  return cause instanceof Error ? cause.name : 'UNKNOWN';
}

/** Replaces every occurrence of each non-empty secret, longest first, by `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  return [...secrets]
    .filter((secret) => secret !== '')
    .sort((a, b) => b.length - a.length)
    .reduce((redacted, secret) => redacted.split(secret).join('***'), text);
}

/**
 * The log line of an infrastructure failure: `[component] operation failed: CODE: message`,
 * with the driver's message (never the ORM's, which embeds the query) and every secret
 * (password, connection URL) replaced by `***`.
 */
export function failureLine(
  component: StoreComponent,
  operation: string,
  error: unknown,
  secrets: readonly string[] = [],
): string {
  const cause = rootCause(error) as DriverError | null;
  const detail = typeof cause?.message === 'string' ? cause.message : String(cause);
  return redact(`[${component}] ${operation} failed: ${errorCode(error)}: ${detail}`, secrets);
}
