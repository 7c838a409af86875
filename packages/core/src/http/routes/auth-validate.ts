import { z } from 'zod';
import { formatTimestamp } from '../../time/timestamp.js';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import { jsonResponse } from '../json-response.js';
import { readJsonBody } from '../request-body.js';
import type { RouteHandler } from '../services.js';

const validateBody = z.object({ token: z.string() }).strict();

/**
 * A body token travels in the Bearer header only when it survives there unchanged: header
 * values are trimmed and refuse control characters, so `" cvg_..."` would turn valid and
 * `"cvg_...\n"` would throw. Anything else cannot be a token and is replaced by a value that
 * never authenticates (same 401 and audit line as any other invalid token).
 */
const HEADER_SAFE_TOKEN = /^[\x21-\x7e]+$/;
const NEVER_VALID_TOKEN = 'invalid';

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
      const token = HEADER_SAFE_TOKEN.test(parsed.data.token)
        ? parsed.data.token
        : NEVER_VALID_TOKEN;
      headers.set('authorization', `Bearer ${token}`);
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
