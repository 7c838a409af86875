import type { IncomingMessage, ServerResponse } from 'node:http';
import { normaliseBasePath, stripBasePath } from './base-path.js';
import { requestContext } from './client-disconnect-signal.js';
import { errorResponseFor, isClientError, logToConsole } from './error-response.js';
import type { FetchApi } from './fetch-api.js';
import { toFetchRequest } from './fetch-request.js';
import { writeFetchResponse } from './fetch-response.js';
import { remoteAddressOf } from './remote-address.js';
import { pathAndQueryOf } from './request-target.js';

/** Options of {@link createNodeHandler}. */
export interface NodeHandlerOptions {
  /**
   * Path prefix covgate is mounted under, e.g. `/coverage`. Requests outside it are handed
   * to the core under a path no route matches, so it answers `404 {"error":"not found"}`.
   */
  basePath?: string;
  /** Body limit in bytes. Default 1 MiB. */
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
 * Serves a covgate API on `node:http` (or `node:https`): `http.createServer(handler)`.
 * Never throws and never rejects; a failure outside the core becomes
 * `500 {"error":"internal error"}` (or 413/405 for the bridge's own client errors).
 *
 * @throws TypeError at creation when `basePath` is not a path starting with `/`.
 */
export function createNodeHandler(
  api: FetchApi,
  options: NodeHandlerOptions = {},
): NodeRequestListener {
  const basePath = normaliseBasePath(options.basePath);
  const onError = options.onError ?? logToConsole;
  return (req, res) => {
    void serve(req, res).catch((error: unknown) => {
      if (!isClientError(error)) onError(error);
      return answerFailure(res, error);
    });
  };

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const request = toFetchRequest(req, {
      url: stripBasePath(pathAndQueryOf(req.url ?? '/'), basePath),
      maxBodyBytes: options.maxBodyBytes,
    });
    const response = await api.handle(request, requestContext(res, remoteAddressOf(req)));
    await writeFetchResponse(res, response);
  }
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
