import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CovgateApi } from '@covgate/core';
import { errorResponseFor, isClientError, logToConsole } from './error-response.js';
import { toFetchRequest } from './fetch-request.js';
import { writeFetchResponse } from './fetch-response.js';

/** Options of {@link createNodeHandler}. */
export interface NodeHandlerOptions {
  /**
   * Outer body limit in bytes, before the core's limit of each route. Default: the API's
   * `maxBodyBytes` (the largest body a route of it takes), else the core's `MAX_BODY_BYTES`.
   */
  maxBodyBytes?: number;
  /**
   * Receives failures the client only sees as `500 {"error":"internal error"}`, and body
   * streams that broke mid-response. Default: one `[covgate]` line on stderr.
   */
  onError?: (error: unknown) => void;
}

/** A `node:http` request listener. */
export type NodeRequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Serves a covgate API on `node:http` (or `node:https`): `http.createServer(handler)`. The
 * API answers under its own `basePath`. Never throws and never rejects; a failure outside
 * the core becomes `500 {"error":"internal error"}` (or 413/405 for the bridge's own client
 * errors).
 */
export function createNodeHandler(
  api: Pick<CovgateApi, 'handle'> & { readonly maxBodyBytes?: number },
  options: NodeHandlerOptions = {},
): NodeRequestListener {
  const onError = options.onError ?? logToConsole;
  const maxBodyBytes = options.maxBodyBytes ?? api.maxBodyBytes;
  const requestOptions = maxBodyBytes === undefined ? {} : { maxBodyBytes };
  const fail = (res: ServerResponse, error: unknown): Promise<void> => {
    if (!isClientError(error)) onError(error);
    return answerFailure(res, error);
  };
  return (req, res) => {
    let request: Request;
    try {
      request = toFetchRequest(req, requestOptions);
    } catch (error) {
      void fail(res, error);
      return;
    }
    api
      .handle(request, { remoteAddress: req.socket.remoteAddress })
      .then((response) => writeFetchResponse(res, response))
      .catch((error: unknown) => fail(res, error));
  };
}

async function answerFailure(res: ServerResponse, error: unknown): Promise<void> {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  try {
    await writeFetchResponse(res, errorResponseFor(error));
  } catch {
    res.destroy();
  }
}
