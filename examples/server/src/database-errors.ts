/** Why a connection to the database could not be opened, by the socket error's code. */
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ETIMEDOUT: 'no answer',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name not resolved',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
};

/** Where the server tried to reach the database, and how long it waited. */
export interface ConnectAttempt {
  host: string;
  port: number;
  waitedMs: number;
}

/** A database the server could not connect to at start. */
export class DatabaseUnreachableError extends Error {
  constructor(
    readonly code: string,
    attempt: ConnectAttempt,
  ) {
    const host = attempt.host.includes(':') ? `[${attempt.host}]` : attempt.host;
    const seconds = (attempt.waitedMs / 1000).toFixed(1);
    super(
      `cannot reach the database at ${host}:${attempt.port}: ${UNREACHABLE[code]} (${code}) after ${seconds} s; check DATABASE_URL's host and port, that the database is running and that this machine may connect to it`,
    );
    this.name = 'DatabaseUnreachableError';
  }
}

/**
 * The {@link DatabaseUnreachableError} for a connection failure (refused, timed out, unknown
 * host...), undefined for any other error (a refused password is not a reachability problem).
 * mysql2 and Node put the code on the error or, for several addresses, on their aggregate.
 */
export function unreachableDatabase(
  error: unknown,
  attempt: ConnectAttempt,
): DatabaseUnreachableError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !(code in UNREACHABLE)) return undefined;
  return new DatabaseUnreachableError(code, attempt);
}
