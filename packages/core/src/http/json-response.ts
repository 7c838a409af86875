/**
 * Key under which a response built by covgate also carries its body as a string. Node
 * adapters write the string directly instead of reading a web stream.
 */
export const RESPONSE_TEXT: unique symbol = Symbol.for('covgate.responseText') as never;

/**
 * A response whose text is kept under {@link RESPONSE_TEXT}, without a body stream yet:
 * `createApi` gives it an ordinary body before it leaves, unless the adapter declared
 * `acceptsResponseText` (see {@link withResponseBody}).
 */
export function textResponse(text: string, init: ResponseInit): Response {
  const response = new Response(null, init);
  Object.defineProperty(response, RESPONSE_TEXT, { value: text });
  return response;
}

/**
 * The response as callers that read bodies see it: a text-only response gets its text as
 * an ordinary body (status and the same, possibly already amended, headers kept).
 */
export function withResponseBody(response: Response): Response {
  const text = responseTextOf(response);
  if (text === undefined || response.body !== null) return response;
  const complete = new Response(text, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperty(complete, RESPONSE_TEXT, { value: text });
  return complete;
}

/** The text a response carries under {@link RESPONSE_TEXT}, if any. */
export function responseTextOf(response: Response): string | undefined {
  const text = (response as unknown as Record<symbol, unknown>)[RESPONSE_TEXT];
  return typeof text === 'string' ? text : undefined;
}

/** A JSON response with `Content-Type: application/json`. */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return textResponse(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/** The documented error shape `{ "error": message }`. */
export function errorResponse(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return jsonResponse(status, { error: message }, headers);
}

/** A response without a body (204, 304). */
export function emptyResponse(status: number, headers: Record<string, string> = {}): Response {
  return new Response(null, { status, headers });
}
