import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';

/** Pause between two PINGs of the probe while an outage lasts, in milliseconds. */
const PROBE_PAUSE_MS = 250;

/**
 * An outage in progress on one Redis client, remembered so that a request waits for Redis at
 * most once. Without it, every command of a stalled Redis waits the full deadline: a request
 * whose token is not cached would wait once for the verification throttle and once more for
 * the rate limit. After any command fails, {@link RedisOutage.storeClient} reports the client
 * as not ready (the limiters built with `rejectIfRedisNotReady` then fail at once: rate limits
 * open, throttle counters in process memory) until a background `PING` answers again.
 */
export interface RedisOutage {
  /** Whether a command failed and no `PING` has answered since. */
  readonly down: boolean;
  /** The client as `rate-limiter-flexible` should see it: its commands watched, its status reflecting the outage. */
  readonly storeClient: Redis;
  /** Watches one command of another user of the client: its failure starts an outage. */
  watch<T>(command: Promise<T>): Promise<T>;
  /** Stops the probe. */
  dispose(): void;
}

/** Watches `client` for failed commands; see {@link RedisOutage}. */
export function watchRedisOutage(client: Redis): RedisOutage {
  let down = false;
  let disposed = false;
  const probe = async () => {
    while (down && !disposed) {
      try {
        await client.ping();
        down = false;
      } catch {
        await sleep(PROBE_PAUSE_MS, undefined, { ref: false });
      }
    }
  };
  const failed = () => {
    if (down || disposed) return;
    down = true;
    void probe();
  };
  const watch = <T>(promise: Promise<T>): Promise<T> => {
    promise.catch(failed);
    return promise;
  };
  // A reconnection ends an outage as well as a PING does.
  client.on('ready', () => {
    down = false;
  });
  // The commands `RateLimiterRedis` sends: its increment script and MULTI pipelines (`get`,
  // `block`, `set`); `del` is not on a request's path.
  const storeClient = new Proxy(client, {
    get(target, property) {
      if (property === 'status') return down ? 'outage' : target.status;
      if (property === 'rlflxIncr') {
        return (...args: unknown[]) =>
          watch(
            (target as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>).rlflxIncr!(
              ...args,
            ),
          );
      }
      if (property === 'multi') {
        return (...args: Parameters<Redis['multi']>) => {
          const pipeline = target.multi(...args);
          const exec = pipeline.exec.bind(pipeline);
          pipeline.exec = ((...execArgs: Parameters<typeof exec>) =>
            watch(exec(...execArgs))) as typeof pipeline.exec;
          return pipeline;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' && property !== 'constructor' ? value.bind(target) : value;
    },
  });
  return {
    get down() {
      return down;
    },
    storeClient,
    watch,
    dispose() {
      disposed = true;
    },
  };
}
