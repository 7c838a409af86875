import { setImmediate as nextTurn, setTimeout as sleepFor } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { preciseSleep } from '../../src/time/precise-sleep.js';

/** The durations `preciseSleep` hands to the timer, in order. */
const timerWaits = vi.hoisted((): number[] => []);
vi.mock('node:timers/promises', async (importOriginal) => {
  const timers = await importOriginal<typeof import('node:timers/promises')>();
  return {
    ...timers,
    setTimeout: (ms: number) => {
      timerWaits.push(ms);
      return timers.setTimeout(ms);
    },
  };
});

/** A clock that only moves when told to, and a flag telling whether `sleep` has ended. */
function watchedSleep(ms: number) {
  let now = 1_000;
  let ended = false;
  const done = preciseSleep(ms, () => now).then(() => {
    ended = true;
  });
  return {
    done,
    ended: () => ended,
    setNow(value: number) {
      now = value;
    },
  };
}

async function turns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await nextTurn();
}

/** Waits well past any timer the sleep could have started, then finds it still waiting. */
async function expectStillWaitingAfterItsTimer(sleep: ReturnType<typeof watchedSleep>) {
  await sleepFor(15);
  await turns(5);
  expect(sleep.ended()).toBe(false);
}

/** Moves the clock to `end` and finds the sleep over. */
async function expectEndsWhenClockReaches(sleep: ReturnType<typeof watchedSleep>, end: number) {
  sleep.setNow(end);
  await sleep.done;
  expect(sleep.ended()).toBe(true);
}

describe('preciseSleep', () => {
  it('keeps waiting through the fraction of a millisecond a timer would drop', async () => {
    const sleep = watchedSleep(0.6);
    sleep.setNow(1_000.599);
    // `setTimeout(0.6)` would have ended long before: Node waits at least 1 ms and no more.
    await expectStillWaitingAfterItsTimer(sleep);
    await expectEndsWhenClockReaches(sleep, 1_000.6);
  });

  it('waits past its whole milliseconds until the clock reaches the end', async () => {
    const sleep = watchedSleep(2.25);
    // Well after the 2 ms timer has fired, the clock still says 1 000: not over yet.
    await expectStillWaitingAfterItsTimer(sleep);
    await expectEndsWhenClockReaches(sleep, 1_002.25);
  });

  it('lets other work run while it waits', async () => {
    const sleep = watchedSleep(0.5);
    let otherWorkRan = false;
    setImmediate(() => {
      otherWorkRan = true;
    });
    await turns(3);
    expect(otherWorkRan).toBe(true);
    expect(sleep.ended()).toBe(false);
    sleep.setNow(1_001);
    await sleep.done;
  });

  it('waits under a millisecond without a timer, which would last a whole one', async () => {
    let calls = 0;
    timerWaits.length = 0;
    // The clock reads the end from its second reading on.
    const sleep = preciseSleep(0.3, () => (calls++ === 0 ? 1_000 : 1_000.3));
    let ended = false;
    void sleep.then(() => {
      ended = true;
    });
    await turns(3);
    expect(ended).toBe(true);
    expect(timerWaits).toEqual([]);
  });

  it('waits the whole milliseconds on one timer, not by turning the event loop', async () => {
    timerWaits.length = 0;
    const started = performance.now();
    await preciseSleep(30.4);
    expect(timerWaits).toEqual([30]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(30.4);
  });

  it('reads performance.now by default, so a wait under a millisecond is not skipped', async () => {
    const started = performance.now();
    await preciseSleep(0.5);
    expect(performance.now() - started).toBeGreaterThanOrEqual(0.5);
  });

  it('ends at once for no time at all', async () => {
    const sleep = watchedSleep(0);
    await sleep.done;
    expect(sleep.ended()).toBe(true);
  });
});
