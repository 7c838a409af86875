import type { RateLimitOptions } from '@covgate/core';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterRedis } from 'rate-limiter-flexible';

/** Rate-limit counters in Redis, shared by every process of a deployment. */
export interface RedisRateLimit {
  createLimiter: NonNullable<RateLimitOptions['createLimiter']>;
  /** Resolves once connected; requests before that are served (fail open). */
  ready: Promise<void>;
  dispose(): Promise<void>;
}

/**
 * Connects to `REDIS_URL` for rate limiting. Commands are not queued while Redis is down,
 * so an outage makes the limiter fail at once and covgate serves the request (fail open,
 * logged as `[ratelimit] ...`) instead of hanging.
 */
export function redisRateLimit(url: string, logger: Logger): RedisRateLimit {
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  client.on('error', (error) => logger.error(`[ratelimit] redis: ${error.message}`));
  const ready = new Promise<void>((resolve) => client.once('ready', () => resolve()));
  return {
    createLimiter: ({ points, duration, keyPrefix }) =>
      new RateLimiterRedis({ storeClient: client, points, duration, keyPrefix }),
    ready,
    async dispose() {
      client.disconnect();
    },
  };
}
