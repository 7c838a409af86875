import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Constant-time check of a presented value against `SERVICE_TOKEN`. Both sides are hashed
 * first so the comparison never depends on, or leaks, the length of the secret. An unset
 * or empty configured token matches nothing (fail closed).
 */
export function isServiceToken(presented: string | null, configured: string | undefined): boolean {
  if (!configured || presented === null) return false;
  return timingSafeEqual(digest(presented), digest(configured));
}
