import type { TokenIdentity } from '../../identity/identities.js';
import type { TokenRecord } from '../../storage/store.js';
import { parseApiToken } from '../../tokens/token-format.js';
import type { PepperMatch } from '../../tokens/token-hash.js';
import { isTokenUsable } from '../../tokens/token-status.js';
import { VerificationOverloadError } from '../../tokens/verification-gate.js';
import type { ThrottleBlock, ThrottleReservation } from '../../tokens/verification-throttle.js';
import { ApiError, ERRORS } from '../api-error.js';
import type { ApiServices, RequestScope } from '../services.js';
import type { ApiTokenLogin, SharedVerification } from './token-login-state.js';

/** Seconds a shed verification is told to wait (`Retry-After`). */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;

const TOUCH_INTERVAL_MS = 60_000;

function touchLater(services: ApiServices, token: TokenRecord): void {
  const now = services.clock.now();
  if (token.lastUsedAt && now.getTime() - token.lastUsedAt.getTime() < TOUCH_INTERVAL_MS) return;
  // Not awaited, and a failure (logged by the store) must not fail the request it serves.
  services.store.touchToken(token.id, now).catch(() => undefined);
}

/**
 * Stores the token's hash under the current pepper (compare-and-set on the old hash, so a
 * concurrent re-hash or revoke wins) and records `token.rehash`. A store failure is logged
 * and leaves the old hash, which the previous pepper still verifies next time.
 */
async function replaceHash(scope: RequestScope, record: TokenRecord, newHash: string) {
  const { services } = scope;
  try {
    const replaced = await services.store.replaceTokenHash(record.id, record.hash, newHash);
    if (replaced) services.audit.record({ type: 'token.rehash', tokenId: record.id });
  } catch {
    // The store logged it; the request itself succeeded.
  }
}

/** One log line per block a failure started, with its reason. */
function logBlocks(services: ApiServices, blocks: readonly ThrottleBlock[]): void {
  for (const block of blocks) {
    const subject = block.bucket === 'token_id' ? `token_id=${block.key}` : `remote=${block.key}`;
    services.logger.warn(
      `[ratelimit] verification blocked ${subject} for ${block.seconds} s: ${block.reason}`,
    );
  }
}

function overloaded(): ApiError {
  return new ApiError(503, ERRORS.serviceUnavailable, {
    'retry-after': String(OVERLOAD_RETRY_AFTER_SECONDS),
  });
}

/** Which pepper matched; hashers that know one pepper only say `current` or null. */
async function matchPepper(services: ApiServices, hash: string, raw: string): Promise<PepperMatch> {
  const { hasher } = services;
  if (hasher.match) return hasher.match(hash, raw);
  return (await hasher.verify(hash, raw)) ? 'current' : null;
}

/**
 * Checks the secret within the concurrency gate; shed work answers `503` with `Retry-After`.
 * A known id runs argon2 against its hash; a match under the previous pepper also computes
 * the new hash in the same slot. An unknown id cannot match: it holds its place in the gate
 * for the time of a recent verification (or verifies against a dummy hash while no recent
 * time is known), so it answers like a wrong secret without spending argon2's CPU.
 */
async function verifySecret(
  services: ApiServices,
  reservation: ThrottleReservation,
  record: TokenRecord | null,
  raw: string,
): Promise<{ match: PepperMatch; rehash?: string }> {
  const { hasher, verificationPace: pace } = services;
  const hash = record ? record.hash : await services.tokenLogins.dummyHash();
  try {
    return await services.verificationGate.run(
      reservation.trusted ? 'trusted' : 'normal',
      async () => {
        if (!record) {
          await pace.imitate(() => hasher.verify(hash, raw));
          return { match: null };
        }
        const match = await pace.measure(() => matchPepper(services, hash, raw));
        if (match !== 'previous') return { match };
        return { match, rehash: await hasher.hash(raw) };
      },
    );
  } catch (error) {
    if (!(error instanceof VerificationOverloadError)) throw error;
    throw overloaded();
  }
}

/**
 * Verifies an API token (`cvg_...`): a token verified seconds ago is served from the cache;
 * a token already being verified for another request shares that verification's answer;
 * otherwise one failure is reserved in the throttle *before* argon2 runs (given back on
 * success), and argon2 runs within the verification gate. Null for every kind of failure.
 */
export async function loginWithApiToken(
  scope: RequestScope,
  raw: string,
): Promise<ApiTokenLogin | null> {
  const { services } = scope;
  const parsed = parseApiToken(raw);
  if (!parsed) return null;
  // A cache hit is an exact match with a token verified seconds ago: no argon2, no throttle.
  const now = services.clock.now();
  const cached = services.tokenCache.get(raw);
  if (cached && (cached.validUntil === null || now < cached.validUntil)) {
    return { identity: cached.identity, plan: cached.plan };
  }
  // Parallel CI jobs sharing a token whose cache entry just expired would otherwise each
  // reserve a failure on the token id and lock the owner out; sharing the exact token's
  // verification costs one argon2 run and one reservation. Only the same secret joins.
  const { inFlight } = services.tokenLogins;
  const pending = inFlight.get(raw);
  if (pending) {
    const shared = await pending;
    if (shared.kind === 'answer') return shared.login;
    if (shared.kind === 'error') throw shared.error;
    return loginWithApiToken(scope, raw);
  }
  let share: (shared: SharedVerification) => void = () => undefined;
  inFlight.set(
    raw,
    new Promise<SharedVerification>((resolve) => {
      share = resolve;
    }),
  );
  let admitted = false;
  try {
    const login = await verifyUncached(scope, parsed.id, raw, now, () => {
      admitted = true;
    });
    share(admitted ? { kind: 'answer', login } : { kind: 'own-way' });
    return login;
  } catch (error) {
    share(admitted ? { kind: 'error', error } : { kind: 'own-way' });
    throw error;
  } finally {
    inFlight.delete(raw);
  }
}

/**
 * A verification past the cache: throttle reservation, store lookup, argon2 in the gate.
 * `onAdmitted` is called once the throttle and the gate let it verify.
 */
async function verifyUncached(
  scope: RequestScope,
  tokenId: string,
  raw: string,
  now: Date,
  onAdmitted: () => void,
): Promise<ApiTokenLogin | null> {
  const { services } = scope;
  // Without a known client address there is no per-address bucket: one shared "unknown"
  // bucket would let anyone lock every such client out.
  const subject = {
    tokenId,
    token: raw,
    ...(scope.remoteAddressKnown ? { remoteAddress: scope.remoteAddress } : {}),
  };
  // Work that would be shed anyway is refused before it costs a throttle reservation and a
  // store lookup: under a flood that is most requests. Only a token verified from this
  // address (this exact token) may still get in then.
  const { verificationGate } = services;
  if (
    !verificationGate.admits('normal') &&
    !(verificationGate.admits('trusted') && (await services.throttle.isTrusted(subject)))
  ) {
    throw overloaded();
  }
  const decision = await services.throttle.reserve(subject);
  if (!decision.allowed) {
    logBlocks(services, decision.started);
    return null;
  }
  const { reservation } = decision;
  if (!reservation.trusted && !verificationGate.admits('normal')) {
    await reservation.cancel();
    throw overloaded();
  }
  onAdmitted();
  const cacheVersion = services.tokenCache.version();

  let record: TokenRecord | null;
  let verified: boolean;
  let rehash: string | undefined;
  try {
    record = await services.store.findTokenById(tokenId);
    const result = await verifySecret(services, reservation, record, raw);
    verified = result.match !== null && record !== null;
    rehash = result.rehash;
  } catch (error) {
    // Neither a store failure nor a shed request is a failed guess.
    await reservation.cancel();
    throw error;
  }
  if (!record || !verified) {
    logBlocks(services, await reservation.failed());
    return null;
  }
  await reservation.succeeded();
  if (!isTokenUsable(record, now)) return null;
  if (rehash !== undefined) await replaceHash(scope, record, rehash);
  const org = await services.store.findOrganisationById(record.orgId);
  if (!org) return null;

  const identity: TokenIdentity = {
    kind: 'token',
    tokenId: record.id,
    orgId: org.id,
    orgSlug: org.slug,
    scopes: [...record.scopes],
    expiresAt: record.status === 'rotating' ? record.gracePeriodEndsAt : null,
  };
  services.tokenCache.set(
    raw,
    record.id,
    { identity, plan: org.plan, validUntil: identity.expiresAt },
    cacheVersion,
  );
  touchLater(services, record);
  return { identity, plan: org.plan };
}
