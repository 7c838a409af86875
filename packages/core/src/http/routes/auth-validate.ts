import { z } from 'zod';
import { formatTimestamp } from '../../time/timestamp.js';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import { jsonResponse } from '../json-response.js';
import { readJsonBody } from '../request-body.js';
import type { RouteHandler } from '../services.js';

const validateBody = z.object({ token: z.string() }).strict();

/**
 * `POST /v1/auth/validate`: the token comes from `Authorization: Bearer` or the body
 * `{"token": "..."}`; a body that is present but malformed is `400 malformed request`.
 */
export const postAuthValidate: RouteHandler = async (scope) => {
  const body = await readJsonBody(scope.request);
  let request = scope.request;
  if (body !== undefined) {
    const parsed = validateBody.safeParse(body);
    if (!parsed.success) throw new ApiError(400, ERRORS.malformedRequest);
    if (!request.headers.has('authorization')) {
      const headers = new Headers(request.headers);
      headers.set('authorization', `Bearer ${parsed.data.token}`);
      request = new Request(request.url, { method: request.method, headers });
    }
  }
  const identity = await authenticate({ ...scope, request });
  if (identity.kind !== 'token') throw new ApiError(401, ERRORS.invalidToken);
  return jsonResponse(200, {
    valid: true,
    org_id: identity.orgId,
    org: identity.orgSlug,
    token_id: identity.tokenId,
    scopes: identity.scopes,
    expires_at: identity.expiresAt ? formatTimestamp(identity.expiresAt) : null,
  });
};
