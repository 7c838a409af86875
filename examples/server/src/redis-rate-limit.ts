import type {
  RateLimitOptions,
  UsedStateRegistry,
  VerificationThrottleOptions,
} from '@covgate/core';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { watchRedisOutage } from './redis-outage.js';
import { redisUsedStates } from './redis-used-states.js';

/** Bound of every Redis command and of opening the connection, in milliseconds. */
export const REDIS_DEADLINE_MS = 2_000;

/** Rate-limit counters in Redis, shared by every process of a deployment. */
export interface RedisRateLimit {
  createLimiter: NonNullable<RateLimitOptions['createLimiter']>;
  /**
   * Failed-verification counters in Redis, shared by every process; while Redis fails
   * they fall back to process memory (`insuranceLimiter`), so throttling never stops.
   */
  createThrottleLimiter: NonNullable<VerificationThrottleOptions['createLimiter']>;
  /**
   * OAuth login states used once across every process (`SET NX`); while Redis fails, in
   * process memory.
   */
  usedStates: UsedStateRegistry;
  /** Resolves once connected; requests before that are served (fail open). */
  ready: Promise<void>;
  /**
   * Resolves when Redis answers a `PING` within {@link REDIS_DEADLINE_MS}, else rejects; rejects
   * at once during an outage in progress (a command failed and no `PING` has answered since).
   */
  ping(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * Connects to `REDIS_URL` for rate limiting. Commands are not queued while Redis is down
 * and every command has a deadline ({@link REDIS_DEADLINE_MS}), so a refused, dropped or
 * stalled Redis makes the limiter fail within the bound and covgate serves the request
 * (fail open). Once a command has failed, the limiters skip Redis until it answers a `PING`
 * again, so one request waits for Redis at most one deadline in all. Core's limiter logs each outage once; the connection itself logs only its
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
  const outage = watchRedisOutage(client);
  const storeClient = outage.storeClient;
  return {
    createLimiter: ({ points, duration, keyPrefix }) =>
      new RateLimiterRedis({
        storeClient,
        rejectIfRedisNotReady: true,
        points,
        duration,
        keyPrefix,
      }),
    createThrottleLimiter: (options) =>
      new RateLimiterRedis({
        ...options,
        storeClient,
        rejectIfRedisNotReady: true,
        keyPrefix: `covgate-vt-${options.keyPrefix}`,
        insuranceLimiter: new RateLimiterMemory(options),
      }),
    usedStates: redisUsedStates(client, outage, logger),
    ready,
    async ping() {
      if (outage.down) throw new Error('redis outage in progress');
      await client.ping();
    },
    async dispose() {
      outage.dispose();
      client.disconnect();
    },
  };
}
