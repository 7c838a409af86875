import type { CiProvider } from '../storage/store.js';
import { GITHUB_ACTIONS_ISSUER } from './ci-identity.js';
import {
  createIdTokenVerifier,
  type IdTokenIssuer,
  type IdTokenVerifier,
  type JwksSettings,
} from './id-token-verifier.js';
import type { JwksFetch } from './jwks-fetch.js';

/**
 * CI jobs posting runs with their OIDC ID token instead of an API token (`docs/keyless-ci.md`).
 * Which repositories may do so is each repository's `ci_trust` setting.
 */
export interface CiTokenOptions {
  /**
   * The `aud` a token must carry: what the CI job asks its token for (the CLI asks for the
   * service's URL unless told otherwise). Required: a token meant for another service must
   * not be accepted here.
   */
  audience: string | readonly string[];
  /**
   * GitHub Actions: `true` for github.com's issuer, an issuer URL for GitHub Enterprise Server
   * (`https://ghes.example.com/_services/token`), or an {@link IdTokenIssuer} without
   * `provider`; absent or false: not accepted.
   */
  github?: boolean | string | Omit<IdTokenIssuer, 'provider'>;
  /** GitLab CI: its base URL (`https://gitlab.com`), the issuer of its `id_tokens`; absent: not accepted. */
  gitlab?: string | Omit<IdTokenIssuer, 'provider'>;
  /**
   * The key-set fetch port. Default: covgate's guarded fetch, which refuses non-public
   * addresses unless `allowPrivateCodeHosts` allows them (an issuer URL cannot reach an
   * internal service).
   */
  fetchJwks?: JwksFetch;
  /** Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds (default 60). */
  clockToleranceSeconds?: number;
  /** Bounds of the key-set fetches and caches. */
  jwks?: Partial<JwksSettings>;
}

function issuerOf(
  provider: CiProvider,
  setting: boolean | string | Omit<IdTokenIssuer, 'provider'> | undefined,
): IdTokenIssuer | null {
  if (setting === undefined || setting === false) return null;
  if (setting === true) return { provider, issuer: GITHUB_ACTIONS_ISSUER };
  const issuer = typeof setting === 'string' ? { issuer: setting } : setting;
  if (!/^https?:\/\/[^/]/.test(issuer.issuer)) {
    throw new TypeError(`ciTokens.${provider}: the issuer must be an http(s) URL`);
  }
  return { provider, ...issuer };
}

/** The issuers {@link CiTokenOptions} names (at least one, else it throws). */
export function ciTokenIssuers(options: CiTokenOptions): IdTokenIssuer[] {
  const issuers = [issuerOf('github', options.github), issuerOf('gitlab', options.gitlab)].filter(
    (issuer): issuer is IdTokenIssuer => issuer !== null,
  );
  if (issuers.length === 0) throw new TypeError('ciTokens: name github or gitlab (or both)');
  const audiences = typeof options.audience === 'string' ? [options.audience] : options.audience;
  if (audiences.length === 0 || audiences.some((audience) => audience.trim() === '')) {
    throw new TypeError('ciTokens.audience: required, not empty');
  }
  return issuers;
}

/** The verifier {@link CiTokenOptions} describe, fetching keys through `fetchJwks`. */
export function createCiTokenVerifier(
  options: CiTokenOptions,
  fetchJwks: JwksFetch,
  now: () => Date,
): IdTokenVerifier {
  return createIdTokenVerifier({
    issuers: ciTokenIssuers(options),
    audience: options.audience,
    fetch: fetchJwks,
    now,
    ...(options.clockToleranceSeconds !== undefined
      ? { clockToleranceSeconds: options.clockToleranceSeconds }
      : {}),
    ...(options.jwks ? { jwks: options.jwks } : {}),
  });
}
