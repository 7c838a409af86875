import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

// Host names, IPv4 and bracketed IPv6 literals with an optional port; anything else in a
// Host header (paths, credentials, spaces) is not trusted to build a URL from.
const HOST_HEADER = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The origin a request was addressed to: `https` on a TLS socket, else `http`, and the
 * `Host` header when it is a plain host name; `http://localhost` style fallback otherwise.
 * Forwarded headers (`X-Forwarded-Proto`, `Forwarded`) are not trusted.
 */
export function requestOriginOf(req: IncomingMessage): string {
  const scheme = (req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http';
  const host = req.headers.host;
  return `${scheme}://${host !== undefined && HOST_HEADER.test(host) ? host : 'localhost'}`;
}
