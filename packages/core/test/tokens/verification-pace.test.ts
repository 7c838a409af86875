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

  it('refuses a sample count or refresh age that cannot work', () => {
    expect(() => createVerificationPace({ samples: 0 })).toThrow(
      new RangeError('samples must be a positive integer'),
    );
    expect(() => createVerificationPace({ refreshAfterMs: 0 })).toThrow(
      new RangeError('refreshAfterMs must be positive'),
    );
  });
});
