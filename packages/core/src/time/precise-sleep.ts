import { setImmediate as nextTurn, setTimeout as sleepFor } from 'node:timers/promises';

/**
 * Waits `ms` milliseconds to within a few tens of microseconds, without blocking the event
 * loop. Node's timers drop the fraction of a millisecond (`setTimeout(10.9)` ends after
 * about 10.3 ms), which would make a wait that imitates a measured duration measurably
 * shorter than the original. The whole milliseconds are waited with a timer, the rest by
 * yielding turns of the event loop (each turn runs whatever else is ready first).
 *
 * @param now - Monotonic milliseconds. Default `performance.now`.
 */
export async function preciseSleep(
  ms: number,
  now: () => number = () => performance.now(),
): Promise<void> {
  const until = now() + ms;
  const wholeMs = Math.floor(ms);
  if (wholeMs >= 1) await sleepFor(wholeMs);
  while (now() < until) await nextTurn();
}
