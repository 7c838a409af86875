import type { UsedStateRegistry } from '@covgate/core';
import { createMemoryUsedStateRegistry } from '@covgate/core/internal';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RedisOutage } from './redis-outage.js';

/** Prefix of the keys of used login states. */
export const USED_STATE_PREFIX = 'covgate:oauth-state:';

/**
 * The used-state registry of every process of a deployment: a login state is claimed with one
 * `SET <prefix><fingerprint> 1 PX <ms to its expiry> NX`, which exactly one process wins, so a
 * callback replayed on another process is refused before the code host is contacted.
 *
 * Each claim is also recorded in this process's memory first. While Redis fails (a command
 * failed and no `PING` has answered since), claims are checked there alone: a replay on the
 * same process is still refused, and one on another process reaches the code host, which
 * refuses the used code. Logged once when Redis fails and once when it answers again.
 */
export function redisUsedStates(
  client: Redis,
  outage: Pick<RedisOutage, 'down' | 'watch'>,
  logger: Logger,
  now: () => number = Date.now,
): UsedStateRegistry {
  const local = createMemoryUsedStateRegistry({ now });
  let degraded = false;
  const degrade = (reason: string) => {
    if (degraded) return;
    degraded = true;
    logger.error(
      `[oauth] redis unavailable, used login states checked in this process only: ${reason}`,
    );
  };
  return {
    async claim(fingerprint, expiresAt) {
      if (!(await local.claim(fingerprint, expiresAt))) return false;
      if (outage.down) {
        degrade('outage in progress');
        return true;
      }
      const ttlMs = Math.max(1, expiresAt.getTime() - now());
      try {
        const set = await outage.watch(
          client.set(`${USED_STATE_PREFIX}${fingerprint}`, '1', 'PX', ttlMs, 'NX'),
        );
        if (degraded) {
          degraded = false;
          logger.info('[oauth] redis available again: used login states shared again');
        }
        return set === 'OK';
      } catch (error) {
        degrade((error as Error).message);
        return true;
      }
    },
  };
}
