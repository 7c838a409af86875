import type { IncomingMessage } from 'node:http';

/**
 * The peer address of the TCP connection. `X-Forwarded-For` is deliberately not trusted:
 * any client can send it. Behind a reverse proxy, adapters that know the proxy (Express's
 * `trust proxy` setting) can supply a better value.
 */
export function remoteAddressOf(req: IncomingMessage): string | undefined {
  return req.socket.remoteAddress;
}
