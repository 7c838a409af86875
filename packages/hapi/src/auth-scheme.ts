import type { RequestContext } from '@covgate/core';
import { toFetchRequest, UnsupportedMethodError } from '@covgate/node-bridge';
import type { AuthCredentials, ServerAuthScheme } from '@hapi/hapi';
import { hapiError } from './hapi-error.js';

/** Options of a strategy using the `covgate` scheme. */
export interface CovgateAuthOptions<Identity extends object = object> {
  /**
   * Resolves the credentials of a request (API token or covgate session), or `null` when
   * there are none or they are not valid. The request has covgate's method, URL and
   * headers but no body: Hapi authenticates before it reads the payload.
   */
  authenticate(request: Request, context: RequestContext): Promise<Identity | null>;
}

/**
 * A Hapi auth scheme that lets host routes accept covgate's credentials:
 *
 * ```ts
 * server.auth.strategy('covgate', 'covgate', { authenticate: (request, context) => ... });
 * server.route({ method: 'GET', path: '/reports', options: { auth: 'covgate' }, handler });
 * ```
 *
 * The identity becomes `request.auth.credentials`. No identity: `401 {"error":"invalid
 * token"}`, the same answer covgate gives; in `mode: 'try'` the route runs unauthenticated
 * instead. (Hapi's `optional` mode behaves like `required`: a missing token and a bad one
 * are not told apart.)
 */
export const covgateAuthScheme: ServerAuthScheme<CovgateAuthOptions> = (_server, options) => {
  const authenticate = options?.authenticate;
  if (typeof authenticate !== 'function') {
    throw new TypeError('the covgate auth scheme needs options.authenticate(request, context)');
  }
  return {
    async authenticate(request, h) {
      let fetchRequest: Request;
      try {
        fetchRequest = toFetchRequest(request.raw.req, {
          url: `${request.url.pathname}${request.url.search}`,
          body: null,
        });
      } catch (error) {
        if (error instanceof UnsupportedMethodError) return h.unauthenticated(invalidToken());
        throw error;
      }
      const identity = await authenticate(fetchRequest, {
        remoteAddress: request.info.remoteAddress,
      });
      if (identity === null) return h.unauthenticated(invalidToken());
      return h.authenticated({ credentials: identity as AuthCredentials });
    },
  };
};

function invalidToken(): Error {
  return hapiError(401, { error: 'invalid token' });
}
