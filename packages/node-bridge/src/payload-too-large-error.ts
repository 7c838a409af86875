/**
 * The error a request body stream fails with once it goes over the body limit, or at once
 * when the declared `Content-Length` is already over it. The core maps any body-read error
 * whose `status` is 413 to `413 {"error":"payload too large"}`.
 */
export class PayloadTooLargeError extends Error {
  /** HTTP status the error stands for. */
  readonly status = 413;
  /** The limit that was exceeded, in bytes. */
  readonly limit: number;

  constructor(limit: number) {
    super(`payload too large (limit ${limit} bytes)`);
    this.name = 'PayloadTooLargeError';
    this.limit = limit;
  }
}
