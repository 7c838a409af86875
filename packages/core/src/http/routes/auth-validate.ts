import { z } from 'zod';
import { formatTimestamp } from '../../time/timestamp.js';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticateApiTokenValue, denyAuthentication } from '../auth/authenticate.js';
import { bearerToken } from '../auth/credentials.js';
import { jsonReply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RouteHandler } from '../services.js';

// `{}` is accepted (no body token): clients that always send a JSON object rely on the header.
const validateBody = z.object({ token: z.string().optional() }).strict();

/**
 * `POST /v1/auth/validate`: the API token comes from `Authorization: Bearer` (which wins) or
 * the body `{"token": "..."}`; an empty object `{}` is the same as no body; a body that is
 * present but otherwise malformed is `400 malformed request`.
 */
export const postAuthValidate: RouteHandler = async (scope) => {
  const body = await readJsonBody(scope.request);
  let bodyToken: string | null = null;
  if (body !== undefined) {
    const parsed = validateBody.safeParse(body);
    if (!parsed.success) throw new ApiError(400, ERRORS.malformedRequest);
    bodyToken = parsed.data.token ?? null;
  }
  const presented = scope.request.headers.has('authorization')
    ? (bearerToken(scope.request) ?? '')
    : bodyToken;
  if (presented === null) denyAuthentication(scope, 'missing_token');
  const identity = await authenticateApiTokenValue(scope, presented);
  return jsonReply(200, {
    valid: true,
    org_id: identity.orgId,
    org: identity.orgSlug,
    token_id: identity.tokenId,
    scopes: identity.scopes,
    expires_at: identity.expiresAt ? formatTimestamp(identity.expiresAt) : null,
  });
};
