import type { CovgateApi, Identity } from '@covgate/core';
import type { CovgateAuthOptions } from '@covgate/hapi';
import { Boom } from '@hapi/boom';

/** The identity of an API token. */
export type TokenIdentity = Extract<Identity, { kind: 'token' }>;

/** Body of covgate's `200` answer to `POST /v1/auth/validate`. */
interface ValidatedToken {
  org_id: string;
  org: string;
  token_id: string;
  scopes: string[];
  expires_at: string | null;
}

/** Headers of a covgate refusal that tell a client when to retry. */
const RELAYED_HEADERS = [
  'retry-after',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
];

/**
 * The `authenticate` function of the `covgate` auth scheme, for API tokens
 * (`Authorization: Bearer cvg_...`): it asks covgate itself through
 * `POST /v1/auth/validate`, so the check is exactly covgate's (argon2 verification, revoked
 * and rotated tokens, failed-verification throttle per client address, rate limit).
 *
 * No `Authorization` header, or a token covgate refuses: `null` (the scheme answers
 * `401 {"error":"invalid token"}`). Any other refusal, such as `429` when the token is over
 * its plan's rate limit, is passed on with covgate's status, body and `Retry-After`.
 */
export function authenticateWithApi(
  api: CovgateApi,
): CovgateAuthOptions<TokenIdentity>['authenticate'] {
  return async (request, context) => {
    const authorization = request.headers.get('authorization');
    if (authorization === null) return null;
    const validation = new Request(new URL('/v1/auth/validate', request.url), {
      method: 'POST',
      headers: { authorization },
    });
    const response = await api.handle(validation, context);
    if (response.status === 401) return null;
    if (response.status !== 200) throw await refusalOf(response);
    return identityOf((await response.json()) as ValidatedToken);
  };
}

function identityOf(token: ValidatedToken): TokenIdentity {
  return {
    kind: 'token',
    tokenId: token.token_id,
    orgId: token.org_id,
    orgSlug: token.org,
    scopes: token.scopes,
    expiresAt: token.expires_at === null ? null : new Date(token.expires_at),
  };
}

/** covgate's refusal as a Hapi error with covgate's own status, body and retry headers. */
async function refusalOf(response: Response): Promise<Boom> {
  const body = (await response.json()) as { error: string };
  const refusal = new Boom(body.error, { statusCode: response.status });
  Object.assign(refusal.output, { payload: body });
  for (const name of RELAYED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) refusal.output.headers[name] = value;
  }
  return refusal;
}
