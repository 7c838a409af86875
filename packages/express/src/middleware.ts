import { type CovgateApi, isCovgatePath } from '@covgate/core';
import {
  errorResponseFor,
  logToConsole,
  pathAndQueryOf,
  splitPathAndQuery,
  toFetchRequest,
  UnsupportedMethodError,
  writeFetchResponse,
} from '@covgate/node-bridge';
import type { RequestHandler } from 'express';
import { BodyAlreadyConsumedError, bodyReadByParser } from './raw-body.js';

/** Options of {@link covgate}. */
export interface CovgateExpressOptions {
  /**
   * Whether covgate owns every path under its mount point and answers those it does not
   * serve with `404 {"error":"not found"}`. Default `false`: only covgate's paths are
   * answered and everything else goes to `next()`. Set it when the mount belongs to covgate
   * alone (`app.use('/coverage', covgate(api, { exclusive: true }))`); at the root it would
   * hide every route that follows.
   */
  exclusive?: boolean;
  /**
   * Outer body limit in bytes, before the core's limit of each route. Default: the API's
   * `maxBodyBytes` (the largest body a route of it takes), else the core's `MAX_BODY_BYTES`.
   */
  maxBodyBytes?: number;
  /**
   * Receives covgate's own misconfiguration reports (a body parser that ran first without
   * `covgateRawBody`). Default: one `[covgate]` line on stderr.
   */
  onError?: (error: unknown) => void;
}

/**
 * Express 5 middleware serving covgate: `app.use('/coverage', covgate(api))`.
 *
 * It answers covgate's paths (`/health`, `/health/ready`, `/v1/...`, `/auth/...`, relative to the mount
 * point) and calls `next()` for everything else (see `exclusive`), and for methods a Fetch
 * `Request` cannot carry. Failures of covgate itself go to `next(err)`. The client address
 * is `req.ip`, so the application's `trust proxy` setting applies.
 *
 * Install it before `express.json()`, or give that parser `verify: covgateRawBody`: webhook
 * signatures are checked over the raw bytes, which a parsed body no longer has. Otherwise
 * covgate answers `500 {"error":"internal error"}` and reports why through `onError`.
 */
export function covgate(
  api: Pick<CovgateApi, 'handle'> & { readonly basePath?: string; readonly maxBodyBytes?: number },
  options: CovgateExpressOptions = {},
): RequestHandler {
  const onError = options.onError ?? logToConsole;
  const maxBodyBytes = options.maxBodyBytes ?? api.maxBodyBytes;
  // Express strips the mount path from req.url; the API answers under its own basePath.
  const basePath = api.basePath ?? '';
  return (req, res, next) => {
    const target = pathAndQueryOf(req.url);
    if (!options.exclusive && !isCovgatePath(splitPathAndQuery(target).pathname)) {
      next();
      return;
    }
    let request: Request;
    try {
      request = toFetchRequest(req, {
        url: `${basePath}${target}`,
        body: bodyReadByParser(req),
        ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
      });
    } catch (error) {
      if (error instanceof UnsupportedMethodError) {
        next();
      } else if (error instanceof BodyAlreadyConsumedError) {
        onError(error);
        writeFetchResponse(res, errorResponseFor(error)).catch(next);
      } else {
        next(error);
      }
      return;
    }
    api
      .handle(request, { remoteAddress: req.ip ?? req.socket.remoteAddress })
      .then((response) => writeFetchResponse(res, response))
      .catch(next);
  };
}
