/**
 * Thrown by `toFetchRequest` for a method a Fetch `Request` cannot carry (`TRACE`, `TRACK`,
 * `CONNECT`), so adapters can answer 405 or hand the request back to the host framework.
 */
export class UnsupportedMethodError extends Error {
  /** HTTP status the error stands for. */
  readonly status = 405;
  /** The request method, as received. */
  readonly method: string;

  constructor(method: string) {
    super(`method ${method} cannot be represented as a Fetch Request`);
    this.name = 'UnsupportedMethodError';
    this.method = method;
  }
}

const FORBIDDEN_FETCH_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** Whether a Fetch `Request` can carry this method (the Fetch standard forbids a few). */
export function isFetchMethod(method: string): boolean {
  if (method === 'GET' || method === 'POST') return true;
  return !FORBIDDEN_FETCH_METHODS.has(method.toUpperCase());
}
