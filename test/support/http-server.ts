import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

/** A server listening on a free port of 127.0.0.1. */
export interface RunningServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  close(): Promise<void>;
}

/** Serves a `node:http` listener (a bridge handler, an Express app) on a free port. */
export async function listen(listener: RequestListener): Promise<RunningServer> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * Serves a listener like {@link listen} for the test that calls it, and closes it when that
 * test ends, passed or failed: a test may start several, none outlives it.
 */
export async function listenForTest(listener: RequestListener): Promise<RunningServer> {
  const server = await listen(listener);
  onTestFinished(() => server.close());
  return server;
}
