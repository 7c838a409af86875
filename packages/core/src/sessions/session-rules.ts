/** Session lifetime when `SESSION_TTL_SECONDS` is not configured: 24 hours. */
export const DEFAULT_SESSION_TTL_SECONDS = 86_400;

/** Longest session lifetime ever allowed: 7 days. */
export const MAX_SESSION_TTL_SECONDS = 604_800;

/**
 * Resolves the server's session lifetime from configuration. This is the only source of a
 * session's lifetime: a `ttl` sent in a session-creation request is never an input here and
 * is ignored.
 *
 * @param configured - `SESSION_TTL_SECONDS` as a number, or `undefined` when unset.
 * @returns the lifetime in seconds (24 h when unset).
 * @throws RangeError naming `SESSION_TTL_SECONDS` when the value is not a whole number of
 *   seconds in 1..604 800; start-up is refused with it.
 */
export function resolveSessionLifetimeSeconds(configured?: number): number {
  if (configured === undefined) return DEFAULT_SESSION_TTL_SECONDS;
  return assertLifetime(configured);
}

/**
 * The expiry instant of a session created at `createdAt`.
 *
 * @param lifetimeSeconds - the value of {@link resolveSessionLifetimeSeconds}, never a
 *   client-supplied `ttl`.
 * @throws RangeError when the lifetime is outside 1..604 800 whole seconds, so no caller can
 *   exceed the 7-day maximum.
 */
export function sessionExpiresAt(createdAt: Date, lifetimeSeconds: number): Date {
  return new Date(createdAt.getTime() + assertLifetime(lifetimeSeconds) * 1000);
}

/**
 * Whether a session is expired: from the instant `expiresAt` on (`now >= expiresAt`).
 * An unreadable date counts as expired.
 */
export function isSessionExpired(expiresAt: Date, now: Date): boolean {
  return !(now.getTime() < expiresAt.getTime());
}

function assertLifetime(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds <= 0 || seconds > MAX_SESSION_TTL_SECONDS) {
    throw new RangeError(
      `SESSION_TTL_SECONDS must be a whole number of seconds from 1 to ${MAX_SESSION_TTL_SECONDS}`,
    );
  }
  return seconds;
}
