import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy in front of a service (MariaDB, Redis) that a test can stall or cut. */
export interface FaultProxy {
  /** Port the proxy listens on, on 127.0.0.1. */
  port: number;
  /**
   * Stops forwarding in both directions and holds every socket open, new ones included:
   * to both sides the peer looks frozen, like a `SIGSTOP`ped server.
   */
  stall(): void;
  /** Forwards again, delivering what was held. */
  resume(): void;
  /** Destroys every open connection (both sides); new ones are still accepted. */
  drop(): void;
  close(): Promise<void>;
}

/** Starts a proxy on an ephemeral port forwarding to `target`. */
export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let stalled = false;
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    if (stalled) {
      client.pause();
      upstream.pause();
    } else {
      client.pipe(upstream);
      upstream.pipe(client);
    }
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  // Pausing only the readers would let pipe() resume them on 'drain': unpipe while stalled.
  const setFlow = (flowing: boolean) => {
    for (const [client, upstream] of pairs) {
      if (flowing) {
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
        upstream.resume();
      } else {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    }
  };
  return {
    port: address.port,
    stall() {
      stalled = true;
      setFlow(false);
    },
    resume() {
      stalled = false;
      setFlow(true);
    },
    drop() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [client, upstream] of pairs) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
