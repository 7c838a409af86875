import type { TokenRecord, TokenStatus } from '../storage/store.js';

/**
 * The status a token has at `now`. A `rotating` token reads `revoked` once its grace period
 * has ended: it is valid while `now < gracePeriodEndsAt` and not at that instant. A
 * `rotating` token without a (readable) grace end also reads `revoked`.
 */
export function effectiveTokenStatus(
  token: Pick<TokenRecord, 'status' | 'gracePeriodEndsAt'>,
  now: Date,
): TokenStatus {
  if (token.status !== 'rotating') return token.status;
  const graceEnd = token.gracePeriodEndsAt;
  return graceEnd !== null && now.getTime() < graceEnd.getTime() ? 'rotating' : 'revoked';
}

/** Whether a token authenticates requests at `now`: `active`, or `rotating` within its grace. */
export function isTokenUsable(
  token: Pick<TokenRecord, 'status' | 'gracePeriodEndsAt'>,
  now: Date,
): boolean {
  const status = effectiveTokenStatus(token, now);
  // Listed rather than `!== 'revoked'` so that a corrupt stored status fails closed.
  return status === 'active' || status === 'rotating';
}
