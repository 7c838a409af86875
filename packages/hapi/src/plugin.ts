import { Readable } from 'node:stream';
import { COVGATE_PATHS, type CovgateApi, MAX_BODY_BYTES } from '@covgate/core';
import {
  erroredBody,
  errorResponseFor,
  hasRequestBody,
  isClientError,
  limitedBodyStream,
  logToConsole,
  PayloadTooLargeError,
  toFetchRequest,
} from '@covgate/node-bridge';
import type {
  Request as HapiRequest,
  Lifecycle,
  Plugin,
  ResponseToolkit,
  RouteOptions,
} from '@hapi/hapi';
import { version } from '../package.json';
import { covgateAuthScheme } from './auth-scheme.js';
import { hapiErrorStatus } from './hapi-error.js';
import { toHapiResponse } from './hapi-response.js';

/** Options of {@link covgatePlugin}. */
export interface CovgateHapiOptions {
  /** The covgate API to serve (`createApi(...)` of `@covgate/core`). */
  api: Pick<CovgateApi, 'handle'> & { readonly basePath?: string; readonly maxBodyBytes?: number };
  /**
   * Whether covgate owns every path under the registration prefix and answers those it does
   * not serve with `404 {"error":"not found"}` (one catch-all route; more specific routes
   * of the host still win). Default `false`: only covgate's paths are routed, others get
   * Hapi's 404.
   */
  exclusive?: boolean;
  /**
   * Outer body limit in bytes, before the core's limit of each route. Default: the API's
   * `maxBodyBytes` (the largest body a route of it takes), else the core's `MAX_BODY_BYTES`.
   */
  maxBodyBytes?: number;
  /**
   * Receives failures the client only sees as `500 {"error":"internal error"}`, and
   * response bodies that broke midway. Default: one `[covgate]` line on stderr.
   */
  onError?: (error: unknown) => void;
}

/**
 * Hapi 21 plugin serving covgate's paths (`/health`, `/health/ready`, `/v1/...`, `/auth/...`) under the
 * registration prefix, and adding the `covgate` auth scheme for host routes:
 *
 * ```ts
 * await server.register({ plugin: covgatePlugin, options: { api } }, { routes: { prefix: '/coverage' } });
 * ```
 *
 * The routes leave authentication, CORS, caching headers and cookie parsing to covgate
 * (whatever the server defaults are) and hand it the payload unparsed, as the exact bytes received.
 */
export const covgatePlugin = {
  name: '@covgate/hapi',
  version,
  requirements: { hapi: '>=21.0.0' },
  register(server, options) {
    const { api } = options;
    const maxBodyBytes = options.maxBodyBytes ?? api.maxBodyBytes ?? MAX_BODY_BYTES;
    const onError = options.onError ?? logToConsole;
    const prefix = server.realm.modifiers.route.prefix ?? '';
    // Hapi strips the registration prefix; the API answers under its own basePath.
    const basePath = api.basePath ?? '';

    async function answer(
      request: HapiRequest,
      h: ResponseToolkit,
      body: ReadableStream<Uint8Array> | null,
    ) {
      try {
        const fetchRequest = toFetchRequest(request.raw.req, {
          url: `${basePath}${covgatePathOf(request, prefix)}`,
          body,
        });
        const response = await api.handle(fetchRequest, {
          remoteAddress: request.info.remoteAddress,
        });
        return toHapiResponse(h, response, onError);
      } catch (error) {
        if (!isClientError(error)) onError(error);
        return toHapiResponse(h, errorResponseFor(error), onError);
      }
    }

    const onPayloadError: Lifecycle.FailAction = async (request, h, error) => {
      if (hapiErrorStatus(error) !== 413) throw error;
      const reply = await answer(request, h, erroredBody(new PayloadTooLargeError(maxBodyBytes)));
      return reply.takeover();
    };

    const routeOptions: RouteOptions = {
      auth: false,
      cors: false,
      cache: false,
      state: { parse: false, failAction: 'ignore' },
      // Unparsed and streamed: the exact bytes reach covgate, and the bridge counts them,
      // so a chunked upload over the limit still gets covgate's 413 (Hapi's own reader
      // would cut the connection). Hapi checks a declared Content-Length against maxBytes.
      payload: {
        parse: false,
        output: 'stream',
        maxBytes: maxBodyBytes,
        failAction: onPayloadError,
      },
      response: { emptyStatusCode: 200 },
      handler: (request, h) => answer(request, h, bodyOf(request, maxBodyBytes)),
    };

    server.auth.scheme('covgate', covgateAuthScheme);
    server.route(
      (options.exclusive
        ? ['/{path*}']
        : [...COVGATE_PATHS.exact, ...COVGATE_PATHS.trees.map((tree) => `${tree}/{path*}`)]
      ).map((path) => ({
        method: '*',
        path,
        options: routeOptions,
      })),
    );
  },
} satisfies Plugin<CovgateHapiOptions>;

/** The unread body Hapi hands over, limited; `null` when the request has none. */
function bodyOf(request: HapiRequest, maxBodyBytes: number): ReadableStream<Uint8Array> | null {
  const payload = request.payload;
  if (!(payload instanceof Readable) || !hasRequestBody(request.raw.req)) return null;
  return limitedBodyStream(payload, maxBodyBytes);
}

/**
 * The path and query covgate sees: Hapi's (possibly rewritten) URL without the prefix. The
 * raw request target is used as it is when Hapi's path is its path part (no rewrite, nothing
 * normalised), which spares building the WHATWG `URL` that `request.url` makes per request.
 */
function covgatePathOf(request: HapiRequest, prefix: string): string {
  const target = request.raw.req.url ?? '';
  const { path } = request;
  const pathEnd = target.indexOf('?');
  const rawPath = pathEnd === -1 ? target : target.slice(0, pathEnd);
  let pathname: string;
  let search: string;
  if (rawPath === path && !target.includes('#')) {
    pathname = path;
    search = pathEnd === -1 || pathEnd === target.length - 1 ? '' : target.slice(pathEnd);
  } else {
    ({ pathname, search } = request.url);
  }
  const local =
    prefix !== '' && pathname.startsWith(prefix) ? pathname.slice(prefix.length) : pathname;
  return `${local}${search}`;
}
