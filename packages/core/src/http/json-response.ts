/**
 * Key under which a response built by covgate also carries its body as a string. Node
 * bridges that know it write the string directly instead of reading the body stream, which
 * costs more than the rest of a small request; every other consumer reads the ordinary
 * body, which holds the same text.
 */
export const RESPONSE_TEXT: unique symbol = Symbol.for('covgate.responseText') as never;

/** A response whose body is `text`, with the text also reachable under {@link RESPONSE_TEXT}. */
export function textResponse(text: string, init: ResponseInit): Response {
  const response = new Response(text, init);
  Object.defineProperty(response, RESPONSE_TEXT, { value: text });
  return response;
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
