import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

// Host names, IPv4 and bracketed IPv6 literals with an optional port; anything else in a
// Host header (paths, credentials, spaces) is not trusted to build a URL from.
const HOST_HEADER = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The last Host header seen on each scheme and the origin made of it. */
interface LastOrigin {
  host: string | undefined;
  origin: string;
}
const lastHttp: LastOrigin = { host: undefined, origin: 'http://localhost' };
const lastHttps: LastOrigin = { host: undefined, origin: 'https://localhost' };

/**
 * The origin a request was addressed to: `https` on a TLS socket, else `http`, and the
 * `Host` header when it is a plain host name; `http://localhost` style fallback otherwise.
 * Forwarded headers (`X-Forwarded-Proto`, `Forwarded`) are not trusted.
 */
export function requestOriginOf(req: IncomingMessage): string {
  const last = (req.socket as Partial<TLSSocket>).encrypted === true ? lastHttps : lastHttp;
  const host = req.headers.host;
  // Nearly every request of a server names the same host: the same origin string, whose hash
  // the URL joining's lookup then already knows, without the regex or a new string.
  if (host === last.host) return last.origin;
  const scheme = last === lastHttps ? 'https' : 'http';
  const origin = `${scheme}://${host !== undefined && HOST_HEADER.test(host) ? host : 'localhost'}`;
  last.host = host;
  last.origin = origin;
  return origin;
}
