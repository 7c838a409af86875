import { type CiIdentity, postedByOf } from '../../ci-identity/ci-identity.js';
import { isTrusted } from '../../ci-identity/ci-trust.js';
import { looksLikeJwt } from '../../ci-identity/id-token-verifier.js';
import type { Identity } from '../../identity/identity.js';
import { ApiError, ERRORS } from '../api-error.js';
import type { RequestScope } from '../services.js';
import { authenticate } from './authenticate.js';
import { bearerToken } from './credentials.js';
import { deny } from './deny.js';
import { enforce } from './request-limits.js';

/** Who presented an ingest: an API token or a session, or a CI job by its verified ID token. */
export type IngestPoster =
  | { kind: 'identity'; identity: Identity }
  | { kind: 'ci'; ci: CiIdentity };

/**
 * Authenticates an ingest: a Bearer value shaped like a JWT, when CI ID tokens are configured,
 * must verify as one (else the same `401 {"error":"invalid token"}` and `auth.denied` line as
 * a bad API token, and a log line naming the failed check, never the token); anything else
 * goes through {@link authenticate}. A verified CI identity is not yet tied to an
 * organisation: {@link admitCiPoster} does that once the body names it.
 */
export async function authenticateIngest(scope: RequestScope): Promise<IngestPoster> {
  const { request, services } = scope;
  const bearer = bearerToken(request);
  const verifier = services.ciTokens;
  if (bearer !== null && verifier !== undefined && looksLikeJwt(bearer)) {
    const verdict = await verifier.verify(bearer);
    if (!verdict.ok) {
      services.logger.info(
        { requestId: scope.requestId },
        `[oidc] CI ID token refused: ${verdict.reason}`,
      );
      deny(scope, 'invalid_or_expired_token');
    }
    return { kind: 'ci', ci: verdict.identity };
  }
  return { kind: 'identity', identity: await authenticate(scope) };
}

/** The message when a CI ID token's run names no organisation. */
export const CI_ORG_REQUIRED = 'missing required parameter: org';

/**
 * The organisation a CI identity posts `repo`'s run into: the one the body names (`400`
 * without it), when the repository's settings there trust the identity; else `403
 * {"error":"forbidden"}` whether the organisation, the repository or the trust is missing
 * (nothing tells them apart). The request then counts against the organisation's plan under
 * the identity's own budget.
 */
export async function admitCiPoster(
  scope: RequestScope,
  ci: CiIdentity,
  target: { org: string | undefined; repo: string },
): Promise<{ orgId: string; postedBy: string }> {
  if (target.org === undefined) throw new ApiError(400, CI_ORG_REQUIRED);
  const { store, logger, rateLimiter } = scope.services;
  const postedBy = postedByOf(ci);
  const organisation = await store.findOrganisationBySlug(target.org);
  const settings =
    organisation === null ? null : await store.findRepositorySettings(organisation.id, target.repo);
  if (organisation === null || !isTrusted(settings?.ciTrust ?? null, ci)) {
    logger.info(
      { requestId: scope.requestId },
      `[oidc] ${postedBy}${ci.environment === null ? '' : ` (environment ${ci.environment})`} is not trusted by ${target.org}/${target.repo}`,
    );
    throw new ApiError(403, ERRORS.forbidden);
  }
  enforce(scope, await rateLimiter.consumeToken(postedBy, organisation.id, organisation.plan));
  return { orgId: organisation.id, postedBy };
}
