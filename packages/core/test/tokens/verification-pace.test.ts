import { describe, expect, it } from 'vitest';
import { createVerificationPace } from '../../src/tokens/verification-pace.js';

/** A pace on a manual monotonic clock whose sleeps are recorded, never waited. */
function manualPace(options: { samples?: number; refreshAfterMs?: number } = {}) {
  let time = 1_000;
  const slept: number[] = [];
  const picks: number[] = [];
  let nextPick = 0;
  const pace = createVerificationPace({
    ...options,
    now: () => time,
    sleep: async (ms) => {
      slept.push(ms);
    },
    pick: (count) => {
      picks.push(count);
      return Math.min(nextPick, count - 1);
    },
  });
  /** A verification that takes `ms` on the manual clock and counts its runs. */
  const runs = { count: 0 };
  const verification = (ms: number) => async () => {
    runs.count += 1;
    time += ms;
    return false;
  };
  return {
    pace,
    slept,
    picks,
    runs,
    verification,
    advance: (ms: number) => {
      time += ms;
    },
    pickNext: (index: number) => {
      nextPick = index;
    },
  };
}

describe('verification pace', () => {
  it('runs the first imitation for real, then waits its duration without running it', async () => {
    const fx = manualPace();
    await fx.pace.imitate(fx.verification(23));
    expect(fx.runs.count).toBe(1);
    expect(fx.slept).toEqual([]);
    await fx.pace.imitate(fx.verification(23));
    await fx.pace.imitate(fx.verification(23));
    expect(fx.runs.count).toBe(1);
    expect(fx.slept).toEqual([23, 23]);
  });

  it('waits one of the last real durations, drawn among those kept', async () => {
    const fx = manualPace({ samples: 3 });
    for (const ms of [10, 20, 30, 40]) await fx.pace.measure(fx.verification(ms));
    fx.pickNext(0);
    await fx.pace.imitate(fx.verification(99));
    fx.pickNext(2);
    await fx.pace.imitate(fx.verification(99));
    // Three kept: 40 replaced the oldest (10) in the ring.
    expect(fx.picks).toEqual([3, 3]);
    expect(fx.slept).toEqual([40, 30]);
    expect(fx.runs.count).toBe(4);
  });

  it('answers what the measured verification answers, and keeps the duration of one that throws', async () => {
    const fx = manualPace();
    expect(await fx.pace.measure(async () => 'yes')).toBe('yes');
    await expect(
      fx.pace.measure(async () => {
        fx.advance(7);
        throw new Error('argon2 failed');
      }),
    ).rejects.toThrow('argon2 failed');
    fx.pickNext(1);
    await fx.pace.imitate(fx.verification(99));
    expect(fx.slept).toEqual([7]);
  });

  it('runs one imitation for real once the newest duration is stale, the others wait meanwhile', async () => {
    const fx = manualPace({ refreshAfterMs: 60_000 });
    await fx.pace.measure(fx.verification(20));
    fx.advance(60_001);
    let finish: () => void = () => undefined;
    const refresh = fx.pace.imitate(
      () =>
        new Promise<void>((resolve) => {
          fx.runs.count += 1;
          finish = () => {
            fx.advance(25);
            resolve();
          };
        }),
    );
    await fx.pace.imitate(fx.verification(99));
    expect(fx.runs.count).toBe(2);
    expect(fx.slept).toEqual([20]);
    finish();
    await refresh;
    fx.pickNext(1);
    await fx.pace.imitate(fx.verification(99));
    expect(fx.runs.count).toBe(2);
    expect(fx.slept).toEqual([20, 25]);
  });

  it('keeps a duration exactly refreshAfterMs old, and refreshes it a millisecond later', async () => {
    const fx = manualPace({ refreshAfterMs: 60_000 });
    await fx.pace.measure(fx.verification(20));
    fx.advance(60_000);
    await fx.pace.imitate(fx.verification(30));
    expect(fx.runs.count).toBe(1);
    expect(fx.slept).toEqual([20]);
    fx.advance(1);
    await fx.pace.imitate(fx.verification(30));
    expect(fx.runs.count).toBe(2);
  });

  it('refreshes again each time the newest duration has gone stale', async () => {
    const fx = manualPace({ refreshAfterMs: 1_000 });
    await fx.pace.imitate(fx.verification(10));
    fx.advance(1_001);
    await fx.pace.imitate(fx.verification(10));
    fx.advance(1_001);
    await fx.pace.imitate(fx.verification(10));
    expect(fx.runs.count).toBe(3);
    expect(fx.slept).toEqual([]);
  });

  it('runs every imitation for real while no duration is known, even side by side', async () => {
    const fx = manualPace();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = async () => {
      fx.runs.count += 1;
      await gate;
    };
    const both = Promise.all([fx.pace.imitate(slow), fx.pace.imitate(slow)]);
    await Promise.resolve();
    expect(fx.runs.count).toBe(2);
    release();
    await both;
    expect(fx.slept).toEqual([]);
    expect(fx.picks).toEqual([]);
  });

  it('accepts a single kept sample', async () => {
    const fx = manualPace({ samples: 1 });
    await fx.pace.measure(fx.verification(10));
    await fx.pace.measure(fx.verification(12));
    await fx.pace.imitate(fx.verification(99));
    expect(fx.picks).toEqual([1]);
    expect(fx.slept).toEqual([12]);
  });

  it('refuses a sample count or refresh age that cannot work', () => {
    expect(() => createVerificationPace({ samples: 0 })).toThrow(
      new RangeError('samples must be a positive integer'),
    );
    expect(() => createVerificationPace({ refreshAfterMs: 0 })).toThrow(
      new RangeError('refreshAfterMs must be positive'),
    );
  });
});

describe('the default wait of an imitation', () => {
  it('lasts the measured time in real time, the fraction of a millisecond included', async () => {
    let time = 1_000;
    const pace = createVerificationPace({ now: () => time });
    await pace.measure(async () => {
      time += 10.6;
    });
    const started = performance.now();
    await pace.imitate(async () => {
      throw new Error('a kept duration is fresh: nothing runs for real');
    });
    // A bare `setTimeout(10.6)` ends after about 10.1 to 10.4 ms: Node drops the fraction.
    expect(performance.now() - started).toBeGreaterThanOrEqual(10.6);
  });

  it('does not wait on the injected clock, which may stand still', async () => {
    let time = 1_000;
    const pace = createVerificationPace({ now: () => time });
    await pace.measure(async () => {
      time += 5;
    });
    // The clock stops here: a wait measured on it would never end.
    const imitation = pace.imitate(async () => {
      throw new Error('a kept duration is fresh: nothing runs for real');
    });
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      imitation.then(() => 'ended'),
      new Promise((resolve) => {
        timer = setTimeout(resolve, 2_000, 'still waiting after 2 s');
      }),
    ]);
    clearTimeout(timer);
    expect(outcome).toBe('ended');
  });
});
