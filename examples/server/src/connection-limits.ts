import { readFileSync } from 'node:fs';
import type { Server, ServerOptions } from 'node:http';
import { isIPv6, type Socket } from 'node:net';
import type { Logger } from 'pino';
import proxyaddr from 'proxy-addr';

/** How long clients may take and how many connections they may hold. */
export interface ConnectionLimits {
  /** Time to receive a request's headers, from its first byte, in ms. */
  headersTimeoutMs: number;
  /** Time to receive a whole request (headers and body), in ms. */
  requestTimeoutMs: number;
  /** Idle time after which a keep-alive connection is closed, in ms. */
  keepAliveTimeoutMs: number;
  /** Inactivity of a socket (nothing read or written) after which it is closed, in ms. */
  socketIdleTimeoutMs: number;
  /** Connections open at once; beyond, a new connection is closed as soon as it is accepted. */
  maxConnections: number;
  /**
   * Connections one client address holds at once (IPv6 counted per /64); beyond, its new
   * connections are closed as soon as they are accepted. Trusted proxies are not counted.
   */
  maxConnectionsPerAddress: number;
}

/** Descriptors kept for everything but client connections: store pool, Redis, files. */
const RESERVED_DESCRIPTORS = 128;

/**
 * Limits sized for an API whose requests are small (1 MiB bodies at most) and quick: headers
 * in 10 s, a whole request in 30 s, keep-alive connections idle 5 s, 10 000 connections (fewer
 * when the process may open fewer descriptors) and 256 per client address.
 */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  socketIdleTimeoutMs: 30_000,
  maxConnections: 10_000,
  maxConnectionsPerAddress: 256,
};

/**
 * The soft limit of open descriptors of this process (`/proc/self/limits`, Linux), or
 * undefined where it cannot be read.
 */
export function descriptorLimit(
  read: () => string = () => readFileSync('/proc/self/limits', 'utf8'),
): number | undefined {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(read());
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `wanted`, lowered so that client connections alone cannot use every descriptor: once they
 * do, the process can accept nothing (every new connection fails) and cannot open its store.
 */
export function connectionCeiling(wanted: number, descriptors = descriptorLimit()): number {
  if (descriptors === undefined) return wanted;
  return Math.max(1, Math.min(wanted, descriptors - RESERVED_DESCRIPTORS));
}

/** The `createServer` options that carry the time-outs (checked every second). */
export function serverOptionsFor(limits: ConnectionLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the two request time-outs every 30 s by default: a 10 s limit would then
    // hold a slow client for up to 40 s.
    connectionsCheckingInterval: 1_000,
  };
}

/**
 * The key a client's connections are counted under: its address, the IPv4 address of an
 * IPv4-mapped IPv6 one, and the /64 prefix of any other IPv6 address (one host usually owns
 * a whole /64, so counting its addresses one by one would not bound it).
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::')
    ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
    : left;
  const prefix = groups.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16));
  return `${prefix.join(':')}::/64`;
}

/**
 * Applies the limits to `server` (created with {@link serverOptionsFor}): the socket idle
 * time-out, the total ceiling (`maxConnections`, lowered to what the descriptors allow) and
 * the per-address ceiling, so one client holding many slow connections is cut off without
 * starving the others. Peers in `trustProxy` are not counted per address. Each episode of a
 * ceiling reached is logged twice: when connections start being closed, and when they are
 * accepted again, with how many were closed.
 */
export function limitConnections(
  server: Server,
  limits: ConnectionLimits,
  options: { logger: Logger; trustProxy?: readonly string[] },
): { maxConnections: number } {
  const { logger } = options;
  const trusted =
    options.trustProxy && options.trustProxy.length > 0
      ? proxyaddr.compile([...options.trustProxy])
      : () => false;
  server.timeout = limits.socketIdleTimeoutMs;
  const descriptors = descriptorLimit();
  server.maxConnections = connectionCeiling(limits.maxConnections, descriptors);
  if (server.maxConnections < limits.maxConnections) {
    logger.warn(
      `[connections] at most ${server.maxConnections} connections, not ${limits.maxConnections}: this process may open ${descriptors} descriptors (raise its limit, ulimit -n / LimitNOFILE, for more)`,
    );
  }

  let dropped = 0;
  server.on('drop', () => {
    if (dropped === 0) {
      logger.warn(
        `[connections] ${server.maxConnections} connections open (the ceiling): closing new connections until some end`,
      );
    }
    dropped += 1;
  });

  const perAddress = new Map<string, { open: number; refused: number }>();
  server.on('connection', (socket: Socket) => {
    if (dropped > 0) {
      logger.info(`[connections] accepting connections again; ${dropped} closed at the ceiling`);
      dropped = 0;
    }
    const peer = socket.remoteAddress;
    if (peer === undefined || trusted(peer, 0)) return;
    const key = addressKey(peer);
    const entry = perAddress.get(key) ?? { open: 0, refused: 0 };
    if (entry.open >= limits.maxConnectionsPerAddress) {
      if (entry.refused === 0) {
        logger.warn(
          `[connections] ${key} holds ${entry.open} connections (the ceiling per address): closing its new ones until some end`,
        );
      }
      entry.refused += 1;
      socket.destroy();
      return;
    }
    entry.open += 1;
    perAddress.set(key, entry);
    socket.once('close', () => {
      entry.open -= 1;
      if (entry.refused > 0 && entry.open < limits.maxConnectionsPerAddress) {
        logger.info(
          `[connections] ${key} below its ceiling again; ${entry.refused} of its connections closed`,
        );
        entry.refused = 0;
      }
      if (entry.open === 0) perAddress.delete(key);
    });
  });
  return { maxConnections: server.maxConnections };
}
