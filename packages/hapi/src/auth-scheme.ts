import { ApiError, type CovgateApi, ERRORS, type RequestContext } from '@covgate/core';
import { toFetchRequest, UnsupportedMethodError } from '@covgate/node-bridge';
import type { AuthCredentials, ServerAuthScheme } from '@hapi/hapi';
import { hapiError } from './hapi-error.js';

/** Options of a strategy using the `covgate` scheme: covgate's API, or your own function. */
export type CovgateAuthOptions<Identity extends object = object> =
  | {
      /**
       * The covgate API whose `authenticate` checks the credential exactly as covgate's own
       * routes do; a refusal other than 401 (`429` over the rate limit...) is answered with
       * covgate's status, body and headers.
       */
      api: Pick<CovgateApi, 'authenticate'>;
    }
  | {
      /**
       * Resolves the credentials of a request (API token or covgate session), or `null`
       * when there are none or they are not valid. The request has covgate's method, URL
       * and headers but no body: Hapi authenticates before it reads the payload.
       */
      authenticate(request: Request, context: RequestContext): Promise<Identity | null>;
    };

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
  const authenticate = authenticatorOf(options);
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
      let identity: object | null;
      try {
        identity = await authenticate(fetchRequest, { remoteAddress: request.info.remoteAddress });
      } catch (error) {
        if (error instanceof ApiError) {
          throw hapiError(error.status, { error: error.publicMessage }, error.headers);
        }
        throw error;
      }
      if (identity === null) return h.unauthenticated(invalidToken());
      return h.authenticated({ credentials: identity as AuthCredentials });
    },
  };
};

function authenticatorOf(
  options: CovgateAuthOptions | undefined,
): (request: Request, context: RequestContext) => Promise<object | null> {
  if (options && 'api' in options && typeof options.api?.authenticate === 'function') {
    const { api } = options;
    return (request, context) => api.authenticate(request, context);
  }
  if (options && 'authenticate' in options && typeof options.authenticate === 'function') {
    return options.authenticate;
  }
  throw new TypeError('the covgate auth scheme needs options.api or options.authenticate');
}

function invalidToken(): Error {
  return hapiError(401, { error: ERRORS.invalidToken });
}
