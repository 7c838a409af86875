import type { ConnectionOptions, PoolOptions, SslOptions } from 'mysql2/promise';
import type { MySqlUrl, SslMode } from './connection-url.js';

/** Connection pool size when none is given. */
export const DEFAULT_POOL_SIZE = 10;

/**
 * Store calls allowed to wait for a pooled connection; past it a call fails at once. A request
 * makes up to five calls at once (the repository headline), so 100 requests in flight on one
 * process fit; a stalled database piles up at most this many waiting calls, each answered
 * `503` at its deadline.
 */
export const DEFAULT_QUEUE_LIMIT = 500;

/** TLS settings each `sslmode` implies; fields of an explicit `ssl` option override them. */
const TLS_FOR_MODE: Record<Exclude<SslMode, 'disable'>, SslOptions> = {
  require: { rejectUnauthorized: false, verifyIdentity: false },
  'verify-ca': { rejectUnauthorized: true, verifyIdentity: false },
  'verify-full': { rejectUnauthorized: true, verifyIdentity: true },
};

/**
 * The mysql2 options of one connection to a parsed URL: TLS from `sslmode` merged with the
 * explicit `ssl` options (`ca`, `cert`, `key`...; their fields win), UTC timestamps, full
 * Unicode. `ssl` options with no `sslmode` turn TLS on as `verify-full`; `sslmode=disable`
 * with `ssl` options is a contradiction and throws.
 */
export function connectionOptionsFor(url: MySqlUrl, ssl?: SslOptions): ConnectionOptions {
  const tls = tlsFor(url.sslMode, ssl);
  return {
    host: url.host,
    port: url.port,
    user: url.user,
    password: url.password,
    database: url.database,
    ...(tls === undefined ? {} : { ssl: tls }),
    charset: 'utf8mb4',
    timezone: 'Z',
  };
}

/** Connection settings beyond the URL. */
export interface PoolSettings {
  /** Connections kept at most (default {@link DEFAULT_POOL_SIZE}). */
  poolSize?: number;
  /** TLS options passed to mysql2; giving them turns TLS on. */
  ssl?: SslOptions;
  /** Milliseconds a new connection may take to open (default 2000). */
  connectTimeoutMs?: number;
}

/**
 * The mysql2 pool options: {@link connectionOptionsFor} plus the pool size, a connect
 * timeout and a bounded wait queue ({@link DEFAULT_QUEUE_LIMIT}), so a stalled server
 * cannot pile up waiting requests without end.
 */
export function poolOptionsFor(url: MySqlUrl, settings: PoolSettings = {}): PoolOptions {
  const poolSize = settings.poolSize ?? DEFAULT_POOL_SIZE;
  if (!Number.isInteger(poolSize) || poolSize < 1) {
    throw new Error('poolSize must be a positive integer');
  }
  const connectTimeout = settings.connectTimeoutMs ?? 2_000;
  if (!Number.isInteger(connectTimeout) || connectTimeout < 1) {
    throw new Error('connectTimeoutMs must be a positive integer');
  }
  return {
    ...connectionOptionsFor(url, settings.ssl),
    connectionLimit: poolSize,
    connectTimeout,
    queueLimit: DEFAULT_QUEUE_LIMIT,
  };
}

function tlsFor(
  mode: SslMode | undefined,
  explicit: SslOptions | undefined,
): SslOptions | undefined {
  if (mode === 'disable') {
    if (explicit !== undefined) throw new Error('sslmode=disable contradicts the ssl option');
    return undefined;
  }
  if (mode === undefined) {
    return explicit === undefined ? undefined : { ...TLS_FOR_MODE['verify-full'], ...explicit };
  }
  return { ...TLS_FOR_MODE[mode], ...explicit };
}
