import type { Buffer } from 'node:buffer';
import { createHmac } from 'node:crypto';

/** HMAC-SHA256 of the concatenated parts, keyed with the secret's UTF-8 bytes. */
export function hmacSha256(secret: string, ...parts: readonly Uint8Array[]): Buffer {
  const hmac = createHmac('sha256', secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}
