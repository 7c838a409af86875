import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Constant-time check of a presented value against `SERVICE_TOKEN` and, during a rotation,
 * `SERVICE_TOKEN_PREVIOUS`. Both sides are hashed first so the comparison never depends on,
 * or leaks, the length of a secret, and both configured values are always compared, so the
 * time does not tell which one matched. An unset or empty configured value matches nothing
 * (fail closed), and a previous value without a current one is not accepted either.
 */
export function isServiceToken(
  presented: string | null,
  configured: string | undefined,
  previous?: string,
): boolean {
  if (!configured || presented === null) return false;
  const given = digest(presented);
  const current = timingSafeEqual(given, digest(configured));
  const old = Boolean(previous) && timingSafeEqual(given, digest(previous as string));
  return current || old;
}
