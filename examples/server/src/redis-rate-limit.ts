import type { RateLimitOptions } from '@covgate/core';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterRedis } from 'rate-limiter-flexible';

/** Bound of every Redis command and of opening the connection, in milliseconds. */
export const REDIS_DEADLINE_MS = 2_000;

/** Rate-limit counters in Redis, shared by every process of a deployment. */
export interface RedisRateLimit {
  createLimiter: NonNullable<RateLimitOptions['createLimiter']>;
  /** Resolves once connected; requests before that are served (fail open). */
  ready: Promise<void>;
  /** Resolves when Redis answers a `PING` within {@link REDIS_DEADLINE_MS}, else rejects. */
  ping(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * Connects to `REDIS_URL` for rate limiting. Commands are not queued while Redis is down
 * and every command has a deadline ({@link REDIS_DEADLINE_MS}), so a refused, dropped or
 * stalled Redis makes the limiter fail within the bound and covgate serves the request
 * (fail open). Core's limiter logs each outage once; the connection itself logs only its
 * losses and recoveries, not every reconnection attempt.
 */
export function redisRateLimit(url: string, logger: Logger): RedisRateLimit {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_DEADLINE_MS,
    connectTimeout: REDIS_DEADLINE_MS,
  });
  let lost = false;
  client.on('error', (error) => {
    if (lost) return;
    lost = true;
    logger.error(`[ratelimit] redis unreachable: ${error.message}`);
  });
  client.on('ready', () => {
    if (lost) logger.info('[ratelimit] redis reachable again');
    lost = false;
  });
  const ready = new Promise<void>((resolve) => client.once('ready', () => resolve()));
  return {
    createLimiter: ({ points, duration, keyPrefix }) =>
      new RateLimiterRedis({ storeClient: client, points, duration, keyPrefix }),
    ready,
    async ping() {
      await client.ping();
    },
    async dispose() {
      client.disconnect();
    },
  };
}
