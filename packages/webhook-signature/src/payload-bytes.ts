/** A webhook body exactly as received: its bytes, or a string that is UTF-8 encoded. */
export type WebhookPayload = Uint8Array | string;

const encoder = new TextEncoder();

/**
 * The bytes a signature covers. A parsed JSON object is refused loudly: a re-serialisation
 * never reproduces the signed bytes, so accepting one could only hide the bug.
 *
 * @throws TypeError when the payload is neither a string nor a Uint8Array (Buffer included).
 */
export function payloadBytes(payload: WebhookPayload): Uint8Array {
  if (typeof payload === 'string') return encoder.encode(payload);
  if (payload instanceof Uint8Array) return payload;
  throw new TypeError('webhook payload must be the raw body: a Uint8Array or a string');
}
