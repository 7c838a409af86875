import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/** A `TRUST_PROXY` entry that is neither an IP address nor a CIDR range. */
export class InvalidTrustProxyError extends Error {
  constructor(readonly entry: string) {
    super(`TRUST_PROXY: "${entry}" is not an IP address or CIDR range`);
    this.name = 'InvalidTrustProxyError';
  }
}

/** Finds the client address of a request from its peer address and forwarded headers. */
export interface ClientAddressResolver {
  /**
   * The client address: the peer itself, or, when the peer is a trusted proxy, the
   * right-most `X-Forwarded-For` entry that is not a trusted proxy.
   */
  resolve(peer: string | undefined, headers: Headers): string | undefined;
  /** Whether a trusted proxy is configured. */
  readonly trusting: boolean;
}

/** Loopback, link-local and private (RFC 1918, unique local) ranges. */
const isPrivate = proxyaddr.compile(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Whether a request came from a private address with forwarded headers: a reverse proxy
 * that nobody declared trusted, so every client seems to share the proxy's address.
 */
export function looksProxied(peer: string | undefined, headers: Headers): boolean {
  if (peer === undefined) return false;
  if (!headers.has('x-forwarded-for') && !headers.has('forwarded')) return false;
  return isPrivate(peer, 0);
}

/** Parses `TRUST_PROXY`: a comma-separated string or a list of addresses and CIDR ranges. */
export function parseTrustProxy(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  const entries = typeof value === 'string' ? value.split(',') : [...value];
  const list = entries.map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const entry of list) {
    try {
      proxyaddr.compile(entry);
    } catch {
      throw new InvalidTrustProxyError(entry);
    }
  }
  return list;
}

/**
 * Builds the resolver of a trusted-proxy list (`proxy-addr` does the address and CIDR
 * matching, IPv4-mapped IPv6 included). Without a list, forwarded headers are ignored and
 * the client address is the peer's.
 *
 * @throws InvalidTrustProxyError for an entry that is not an address or CIDR range.
 */
export function createClientAddressResolver(
  trustProxy: string | readonly string[] | undefined,
): ClientAddressResolver {
  const list = parseTrustProxy(trustProxy);
  if (list.length === 0) return { resolve: (peer) => peer, trusting: false };
  const trust = proxyaddr.compile(list);
  return {
    trusting: true,
    resolve(peer, headers) {
      if (peer === undefined) return undefined;
      const forwarded = headers.get('x-forwarded-for');
      if (forwarded === null) return peer;
      // proxy-addr reads a Node request; it needs only these two fields.
      const request = {
        socket: { remoteAddress: peer },
        connection: { remoteAddress: peer },
        headers: { 'x-forwarded-for': forwarded },
      } as unknown as IncomingMessage;
      return proxyaddr(request, trust);
    },
  };
}
