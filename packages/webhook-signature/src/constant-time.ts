import { Buffer } from 'node:buffer';
import { timingSafeEqual } from 'node:crypto';

/**
 * Whether `candidate` is the lowercase hex spelling of `digest`, compared in constant time.
 * Anything else (wrong length, non-hex, uppercase hex) is a non-match, never an exception.
 */
export function matchesHexDigest(digest: Buffer, candidate: string): boolean {
  if (candidate.length !== digest.length * 2 || !/^[0-9a-f]*$/.test(candidate)) return false;
  return timingSafeEqual(digest, Buffer.from(candidate, 'hex'));
}
