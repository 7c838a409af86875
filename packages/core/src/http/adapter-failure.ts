import { randomUUID } from 'node:crypto';
import { ERRORS } from './api-error.js';
import { PREFLIGHT_METHODS } from './cors.js';
import { toResponse } from './covgate-response.js';
import { errorReply } from './reply.js';

/**
 * A failure an adapter meets outside the core: a body over the limit that its framework
 * refused, a method a Fetch `Request` cannot carry (`TRACE`, `CONNECT`), a request its server
 * cannot hand on (`malformed-request`: HTTP/1.1 without `Host`), or anything else (`internal`).
 */
export type AdapterFailure =
  | 'payload-too-large'
  | 'method-not-allowed'
  | 'malformed-request'
  | 'internal';

const ANSWERS: Record<
  AdapterFailure,
  { status: number; message: string; headers?: Record<string, string> }
> = {
  'payload-too-large': { status: 413, message: ERRORS.payloadTooLarge },
  'method-not-allowed': {
    status: 405,
    message: ERRORS.methodNotAllowed,
    headers: { allow: PREFLIGHT_METHODS },
  },
  'malformed-request': { status: 400, message: ERRORS.malformedRequest },
  internal: { status: 500, message: ERRORS.internal },
};

/**
 * covgate's answer to a failure raised inside an adapter, in the API's error shape
 * (`{"error": message}`) with the headers every covgate answer carries (`X-Request-ID`,
 * `Vary: Origin`); `internal` is exactly `500 {"error":"internal error"}`, never a detail.
 */
export function adapterFailureResponse(failure: AdapterFailure): Response {
  const { status, message, headers } = ANSWERS[failure];
  const reply = errorReply(status, message, headers);
  reply.headers.vary = 'Origin';
  reply.headers['x-request-id'] = randomUUID();
  return toResponse(reply);
}
