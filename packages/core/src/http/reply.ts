/**
 * What a route answers: a status, the body as text and the headers. `createApi` adds the
 * per-request headers to it and turns it into one {@link CovgateResponse}, so no route
 * builds a Fetch `Response` (with its body stream and `Headers`) that would be copied again.
 */
export interface Reply {
  status: number;
  /** The body text, or null for none (204, 302, 304). */
  body: string | null;
  /** Lower-case header names; a fresh object per reply, which `createApi` completes in place. */
  headers: Record<string, string>;
  /** `Set-Cookie` values, each sent as its own header line. */
  cookies?: string[];
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A reply whose body is `text` (the caller names its `content-type`). */
export function textReply(status: number, text: string, headers: Record<string, string>): Reply {
  return { status, body: text, headers };
}

/** A JSON reply with `Content-Type: application/json; charset=utf-8`. */
export function jsonReply(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return {
    status,
    body: JSON.stringify(body),
    headers: headers
      ? { 'content-type': JSON_CONTENT_TYPE, ...headers }
      : { 'content-type': JSON_CONTENT_TYPE },
  };
}

/** A JSON reply whose body is `text`, already serialised. */
export function jsonTextReply(status: number, text: string): Reply {
  return textReply(status, text, { 'content-type': JSON_CONTENT_TYPE });
}

/** The documented error shape `{ "error": message }`. */
export function errorReply(
  status: number,
  message: string,
  headers?: Record<string, string>,
): Reply {
  return jsonReply(status, { error: message }, headers);
}

/** A reply without a body (204, 304). */
export function emptyReply(status: number, headers?: Record<string, string>): Reply {
  return { status, body: null, headers: headers ? { ...headers } : {} };
}
