import type { ServerResponse } from 'node:http';
import type { RequestContext } from './fetch-api.js';

/**
 * An `AbortSignal` that fires when the connection closes before the response was fully
 * written, i.e. the client went away, so the core can stop work it no longer needs to do.
 */
export function clientDisconnectSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * The context of one request: the peer address and a client-disconnect signal made on
 * first access (an `AbortSignal` per request is costly on Node 20; most requests never
 * look at it).
 */
export function requestContext(
  res: ServerResponse,
  remoteAddress: string | undefined,
): RequestContext {
  let signal: AbortSignal | undefined;
  return {
    ...(remoteAddress === undefined ? {} : { remoteAddress }),
    acceptsResponseText: true,
    get signal() {
      signal ??= clientDisconnectSignal(res);
      return signal;
    },
  };
}
