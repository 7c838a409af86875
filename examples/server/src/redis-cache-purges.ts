import { randomUUID } from 'node:crypto';
import type { CachePurge, CachePurgeBus } from '@covgate/core';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { REDIS_DEADLINE_MS } from './redis-rate-limit.js';

/** The pub/sub channel of verified-token cache purges. */
export const CACHE_PURGE_CHANNEL = 'covgate:cache-purge';

/** A {@link CachePurgeBus} over Redis pub/sub, and how to close it. */
export interface RedisCachePurges {
  bus: CachePurgeBus;
  /** Resolves once subscribed. */
  ready: Promise<void>;
  dispose(): Promise<void>;
}

function isCachePurge(value: unknown): value is CachePurge {
  const purge = value as { kind?: unknown; tokenId?: unknown } | null;
  return purge?.kind === 'all' || (purge?.kind === 'token' && typeof purge.tokenId === 'string');
}

/**
 * Publishes this process's cache purges on {@link CACHE_PURGE_CHANNEL} and applies the
 * other processes' ones. While Redis is down purges are lost (each process then falls back
 * to the cache TTL) and a publish never waits: the request that revoked is not delayed.
 */
export function redisCachePurges(url: string, logger: Logger): RedisCachePurges {
  const origin = randomUUID();
  const options = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_DEADLINE_MS,
    connectTimeout: REDIS_DEADLINE_MS,
  };
  const publisher = new Redis(url, options);
  // The subscriber must queue its SUBSCRIBE until connected, and re-subscribes by itself.
  const subscriber = new Redis(url, { ...options, enableOfflineQueue: true });
  // Connection losses are logged once by the rate-limit client of the same Redis.
  publisher.on('error', () => {});
  subscriber.on('error', () => {});
  const handlers: Array<(purge: CachePurge) => void> = [];
  subscriber.on('message', (_channel: string, message: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    const { from, purge } = (parsed ?? {}) as { from?: unknown; purge?: unknown };
    if (from === origin || !isCachePurge(purge)) return;
    for (const handler of handlers) handler(purge);
  });
  const ready = subscriber.subscribe(CACHE_PURGE_CHANNEL).then(() => undefined);
  ready.catch((error: Error) =>
    logger.error(`[tokens] cache purge subscription: ${error.message}`),
  );
  return {
    bus: {
      publish(purge) {
        publisher
          .publish(CACHE_PURGE_CHANNEL, JSON.stringify({ from: origin, purge }))
          .catch(() => {
            // Redis down: the other processes fall back to the cache TTL.
          });
      },
      subscribe(handler) {
        handlers.push(handler);
      },
    },
    ready,
    async dispose() {
      publisher.disconnect();
      subscriber.disconnect();
    },
  };
}
