import { randomInt } from 'node:crypto';
import { preciseSleep } from '../time/precise-sleep.js';

/** Settings of {@link createVerificationPace}. */
export interface VerificationPaceOptions {
  /** Durations of real verifications kept; an imitation waits one of them. Default 16. */
  samples?: number;
  /**
   * Once the newest real duration is older than this, the next imitation runs for real
   * and is measured, so the imitated time follows the machine. Default 60 000 ms.
   */
  refreshAfterMs?: number;
  /**
   * Monotonic milliseconds, to measure verifications and their age. Default
   * `performance.now`. The default wait runs in real time whatever this clock says.
   */
  now?: () => number;
  /**
   * Waits `ms` milliseconds without blocking the event loop. Default: a timer for the whole
   * milliseconds and turns of the event loop for the fraction, which a bare `setTimeout`
   * would drop (making unknown ids measurably faster than wrong secrets).
   */
  sleep?: (ms: number) => Promise<void>;
  /** Picks which kept duration an imitation waits: an integer in `[0, count)`. Default `crypto.randomInt`. */
  pick?: (count: number) => number;
}

/**
 * The time of an argon2 verification, spent without its CPU where nothing could match.
 *
 * A token whose id is not in the store cannot verify, yet answering it at once would tell
 * an id that exists from one that does not. Verifying it against a dummy hash hides that, but
 * lets a flood of random tokens burn the CPU that known clients need. Instead the request
 * holds its place in the {@link VerificationGate} for as long as a real verification recently
 * took (one of the last durations, drawn at random), so it waits, queues and is shed exactly
 * like a wrong secret for a known id, and costs a timer instead of argon2.
 */
export interface VerificationPace {
  /** Runs a real verification and keeps how long it took. */
  measure<T>(verification: () => Promise<T>): Promise<T>;
  /**
   * Waits as long as a recent real verification took. With no duration kept yet, or only
   * stale ones, runs `verification` for real instead (measured), like {@link measure}.
   */
  imitate(verification: () => Promise<unknown>): Promise<void>;
}

/** Creates a {@link VerificationPace}. @throws RangeError for a non-positive sample count or refresh age. */
export function createVerificationPace(options: VerificationPaceOptions = {}): VerificationPace {
  const size = options.samples ?? 16;
  const refreshAfterMs = options.refreshAfterMs ?? 60_000;
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError('samples must be a positive integer');
  if (!(refreshAfterMs > 0)) throw new RangeError('refreshAfterMs must be positive');
  const now = options.now ?? (() => performance.now());
  // Real time, whatever `now` is: a clock injected for measuring must not stall the waits.
  const sleep = options.sleep ?? ((ms: number) => preciseSleep(ms));
  const pick = options.pick ?? ((count: number) => randomInt(count));
  const durations: number[] = [];
  let next = 0;
  let newestAt = Number.NEGATIVE_INFINITY;
  // One real refresh at a time: the other imitations meanwhile wait a kept duration.
  let refreshing = false;

  async function measure<T>(verification: () => Promise<T>): Promise<T> {
    const started = now();
    try {
      return await verification();
    } finally {
      const ended = now();
      durations[next] = ended - started;
      next = (next + 1) % size;
      newestAt = ended;
    }
  }

  return {
    measure,
    async imitate(verification) {
      const stale = now() - newestAt > refreshAfterMs;
      if (durations.length === 0 || (stale && !refreshing)) {
        refreshing = true;
        try {
          await measure(verification);
        } finally {
          refreshing = false;
        }
        return;
      }
      await sleep(durations[pick(durations.length)] as number);
    },
  };
}
