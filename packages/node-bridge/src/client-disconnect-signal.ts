import type { ServerResponse } from 'node:http';

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
