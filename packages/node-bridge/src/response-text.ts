/**
 * covgate's core keeps the text of the bodies it builds under this registered symbol. An
 * adapter that says so (`acceptsResponseText` in the request context) gets such responses
 * without a body stream and writes the text itself: on Node 20 a web stream per response
 * costs more than the rest of a small request.
 */
export const RESPONSE_TEXT = Symbol.for('covgate.responseText');

/** The text a response carries under {@link RESPONSE_TEXT}, if any. */
export function responseTextOf(response: Response): string | undefined {
  const text = (response as unknown as Record<symbol, unknown>)[RESPONSE_TEXT];
  return typeof text === 'string' ? text : undefined;
}
