import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Lets a `node:http` server shut down by draining instead of cutting connections. */
export interface Drain {
  /**
   * Stops accepting connections, answers the requests already received with
   * `Connection: close`, closes idle keep-alive connections, and resolves once every
   * connection is closed.
   */
  close(): Promise<void>;
}

/**
 * Tracks the responses in flight on `server` so that {@link Drain.close} can finish them:
 * each response still to be sent after shutdown begins says `Connection: close` (the client
 * reconnects elsewhere), and each keep-alive connection is closed as soon as it is idle.
 */
export function drainOnClose(server: Server): Drain {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    if (draining) response.setHeader('connection', 'close');
    inFlight.add(response);
    response.once('close', () => {
      inFlight.delete(response);
      if (draining) server.closeIdleConnections();
    });
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        draining = true;
        for (const response of inFlight) {
          if (!response.headersSent) response.setHeader('connection', 'close');
        }
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
