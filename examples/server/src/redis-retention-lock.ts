import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Mutex } from 'redis-semaphore';
import { REDIS_DEADLINE_MS } from './redis-rate-limit.js';
import type { RetentionLock } from './retention-lock.js';

/** The lock's key (`mutex:covgate:retention` in Redis). */
export const RETENTION_LOCK_KEY = 'covgate:retention';

/** How long the lock outlives a process that died holding it; refreshed every 20 s meanwhile. */
const LOCK_TIMEOUT_MS = 60_000;

/**
 * One retention pass at a time across the processes sharing `REDIS_URL` (a `redis-semaphore`
 * mutex: `SET NX PX`, refreshed while held, released by compare-and-delete). A process that
 * finds it held skips its turn; while Redis is unreachable nobody prunes (the pass is skipped,
 * not run unlocked), and pruning waits for the next turn.
 */
export function redisRetentionLock(url: string, logger: Pick<Logger, 'error'>): RetentionLock {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_DEADLINE_MS,
    connectTimeout: REDIS_DEADLINE_MS,
    lazyConnect: true,
  });
  client.on('error', () => {
    // Reported by the pass that fails to take the lock, once per turn.
  });
  return {
    async runAlone(work) {
      const lost = new AbortController();
      const mutex = new Mutex(client, RETENTION_LOCK_KEY, {
        lockTimeout: LOCK_TIMEOUT_MS,
        acquireAttemptsLimit: 1,
        onLockLost: () => {
          logger.error('[retention] lost the lock in Redis: pass stopped');
          lost.abort();
        },
      });
      if (client.status === 'wait') await client.connect();
      if (!(await mutex.tryAcquire())) return null;
      try {
        return await work(lost.signal);
      } finally {
        await mutex.release().catch(() => {
          // Expires on its own within LOCK_TIMEOUT_MS.
        });
      }
    },
    async dispose() {
      client.disconnect();
    },
  };
}
