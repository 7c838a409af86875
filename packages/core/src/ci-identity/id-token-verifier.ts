import {
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  errors,
  type JWTPayload,
  jwtVerify,
  type RemoteJWKSet,
} from 'jose';
import { type CiIdentity, type CiProvider, ciIdentityOf } from './ci-identity.js';
import { boundedJwksFetch, type JwksFetch } from './jwks-fetch.js';

/** One issuer of CI ID tokens covgate trusts to say who is running. */
export interface IdTokenIssuer {
  /** Which CI system issues the tokens (how their claims name the repository). */
  provider: CiProvider;
  /** The `iss` claim, exactly (`https://token.actions.githubusercontent.com`, `https://gitlab.com`). */
  issuer: string;
  /**
   * Where its keys are. Default: GitHub's `<issuer>/.well-known/jwks`, GitLab's
   * `<issuer>/oauth/discovery/keys`.
   */
  jwksUrl?: string;
}

/** Bounds on the key-set fetches and caches (defaults in {@link JWKS_DEFAULTS}). */
export interface JwksSettings {
  /** Deadline of one fetch, body included. */
  timeoutMs: number;
  /** Largest key set accepted. */
  maxBytes: number;
  /** A token naming an unknown key refetches the set at most once per this period. */
  cooldownMs: number;
  /** Keys older than this are fetched again before use. */
  cacheMaxAgeMs: number;
  /** After a failed fetch, no other is tried for this long. */
  failureBackoffMs: number;
}

/** 5 s, 64 KiB, a refetch per 30 s for unknown keys, keys kept 10 minutes, 30 s after a failure. */
export const JWKS_DEFAULTS: JwksSettings = {
  timeoutMs: 5_000,
  maxBytes: 64 * 1024,
  cooldownMs: 30_000,
  cacheMaxAgeMs: 10 * 60_000,
  failureBackoffMs: 30_000,
};

/** What {@link createIdTokenVerifier} needs. */
export interface IdTokenVerifierOptions {
  issuers: readonly IdTokenIssuer[];
  /** The `aud` the tokens must carry (one of them when several). */
  audience: string | readonly string[];
  /** The key-set fetch port. */
  fetch: JwksFetch;
  /** Current time for `exp`, `nbf` and `iat`. */
  now: () => Date;
  /** Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds (default 60). */
  clockToleranceSeconds?: number;
  jwks?: Partial<JwksSettings>;
}

/** The signature algorithms CI providers use; `none` and the HMAC family are never accepted. */
export const ID_TOKEN_ALGORITHMS = ['RS256', 'ES256'] as const;

/** A verified token's identity, or why the token was refused (for logs, never for answers). */
export type IdTokenVerdict =
  | { ok: true; identity: CiIdentity; claims: JWTPayload }
  | { ok: false; reason: string };

/** Verifies CI ID tokens against their issuers' published keys. */
export interface IdTokenVerifier {
  verify(token: string): Promise<IdTokenVerdict>;
}

/** The key-set URL of an issuer (see {@link IdTokenIssuer.jwksUrl}). */
export function jwksUrlOf(issuer: IdTokenIssuer): string {
  if (issuer.jwksUrl !== undefined) return issuer.jwksUrl;
  const base = issuer.issuer.replace(/\/+$/, '');
  return issuer.provider === 'github' ? `${base}/.well-known/jwks` : `${base}/oauth/discovery/keys`;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Whether a credential has the shape of a compact JWT (three base64url parts). */
export function looksLikeJwt(value: string): boolean {
  return value.length <= 16_384 && JWT_SHAPE.test(value);
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JOSEError) return `${error.code} (${error.message})`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * A verifier of CI ID tokens: the token's `iss` picks one of `issuers` (exact match, else
 * refused without any fetch); its signature must verify with a key of that issuer's key set
 * (RS256 or ES256 only) and its `aud`, `exp`, `nbf` and `iat` must hold within the clock
 * tolerance. Each issuer's keys are fetched through `fetch`, bounded in time and size, cached,
 * and fetched again for an unknown key id at most once per cooldown. Every failure is a
 * refusal: nothing is accepted on a fetch error.
 */
export function createIdTokenVerifier(options: IdTokenVerifierOptions): IdTokenVerifier {
  const settings = { ...JWKS_DEFAULTS, ...options.jwks };
  const audience = typeof options.audience === 'string' ? options.audience : [...options.audience];
  const keySets = new Map<string, { issuer: IdTokenIssuer; keys: RemoteJWKSet }>();
  for (const issuer of options.issuers) {
    const fetchKeys = boundedJwksFetch(options.fetch, {
      maxBytes: settings.maxBytes,
      failureBackoffMs: settings.failureBackoffMs,
      now: () => Date.now(),
    });
    const keys = createRemoteJWKSet(new URL(jwksUrlOf(issuer)), {
      timeoutDuration: settings.timeoutMs,
      cooldownDuration: settings.cooldownMs,
      cacheMaxAge: settings.cacheMaxAgeMs,
      [customFetch]: fetchKeys,
    });
    keySets.set(issuer.issuer, { issuer, keys });
  }
  return {
    async verify(token) {
      if (!looksLikeJwt(token)) return { ok: false, reason: 'not a JWT' };
      let issuerClaim: unknown;
      try {
        issuerClaim = decodeJwt(token).iss;
      } catch (error) {
        return { ok: false, reason: reasonOf(error) };
      }
      const entry = typeof issuerClaim === 'string' ? keySets.get(issuerClaim) : undefined;
      if (entry === undefined) return { ok: false, reason: 'issuer not configured' };
      try {
        const { payload } = await jwtVerify(token, entry.keys, {
          issuer: entry.issuer.issuer,
          audience,
          algorithms: [...ID_TOKEN_ALGORITHMS],
          clockTolerance: options.clockToleranceSeconds ?? 60,
          currentDate: options.now(),
          requiredClaims: ['exp', 'iat'],
        });
        const identity = ciIdentityOf(entry.issuer.provider, payload);
        if (identity === null) return { ok: false, reason: 'no repository claim' };
        return { ok: true, identity, claims: payload };
      } catch (error) {
        return { ok: false, reason: reasonOf(error) };
      }
    },
  };
}
