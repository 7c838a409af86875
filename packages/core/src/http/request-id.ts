import { randomUUID } from 'node:crypto';

const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The `X-Request-ID` of a response: the caller's value when it is 1-128 characters of
 * `[A-Za-z0-9._:-]` (so it cannot inject anything into logs), otherwise a new UUID.
 */
export function resolveRequestId(
  incoming: string | null,
  generate: () => string = randomUUID,
): string {
  return incoming !== null && ACCEPTED_REQUEST_ID.test(incoming) ? incoming : generate();
}
