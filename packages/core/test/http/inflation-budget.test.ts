import { describe, expect, it } from 'vitest';
import {
  createInflationBudget,
  DEFAULT_INFLATION_BUDGET_BYTES,
} from '../../src/http/inflation-budget.js';

describe('the memory budget of gzip bodies inflating at once', () => {
  it('is 64 MiB by default', () => {
    expect(DEFAULT_INFLATION_BUDGET_BYTES).toBe(64 * 1024 * 1024);
    const budget = createInflationBudget();
    const claim = budget.claim();
    expect(claim.take(DEFAULT_INFLATION_BUDGET_BYTES)).toBe(true);
    expect(claim.take(1)).toBe(false);
  });

  it('lets inflations take bytes up to the budget together, exactly, and no more', () => {
    const budget = createInflationBudget({ maxBytes: 100 });
    const first = budget.claim();
    const second = budget.claim();
    expect(first.take(60)).toBe(true);
    expect(second.take(41)).toBe(false);
    expect(budget.bytesInUse()).toBe(60);
    expect(second.take(40)).toBe(true);
    expect(budget.bytesInUse()).toBe(100);
    expect(first.take(1)).toBe(false);
  });

  it('gives back everything an inflation took when it is released, once', () => {
    const budget = createInflationBudget({ maxBytes: 100 });
    const first = budget.claim();
    const second = budget.claim();
    first.take(30);
    first.take(30);
    second.take(40);
    first.release();
    expect(budget.bytesInUse()).toBe(40);
    first.release();
    expect(budget.bytesInUse()).toBe(40);
    expect(first.take(10)).toBe(false);
    expect(budget.bytesInUse()).toBe(40);
    second.release();
    expect(budget.bytesInUse()).toBe(0);
  });

  it('says once when it starts refusing and once when half of it is free again, with the count', () => {
    const events: unknown[] = [];
    const budget = createInflationBudget({
      maxBytes: 100,
      onOverload: (state, load) => events.push([state, load]),
    });
    const big = budget.claim();
    const small = budget.claim();
    big.take(60);
    small.take(30);
    const late = budget.claim();
    expect(late.take(20)).toBe(false);
    expect(late.take(20)).toBe(false);
    expect(events).toEqual([['started', { bytesInUse: 90, inflations: 3, refused: 0 }]]);
    late.release();
    small.release();
    // 60 in use: more than half, still shedding.
    expect(events).toHaveLength(1);
    expect(budget.claim().take(50)).toBe(false);
    big.release();
    expect(events).toEqual([
      ['started', { bytesInUse: 90, inflations: 3, refused: 0 }],
      ['ended', { bytesInUse: 0, inflations: 1, refused: 3 }],
    ]);
  });

  it('tells nothing when inflations end without having been refused', () => {
    const states: string[] = [];
    const budget = createInflationBudget({
      maxBytes: 100,
      onOverload: (state) => states.push(state),
    });
    const first = budget.claim();
    const second = budget.claim();
    expect(first.take(100)).toBe(true);
    first.release();
    expect(second.take(10)).toBe(true);
    second.release();
    expect(states).toEqual([]);
  });

  it('ends an overload without a listener', () => {
    const budget = createInflationBudget({ maxBytes: 100 });
    const full = budget.claim();
    full.take(100);
    expect(budget.claim().take(1)).toBe(false);
    expect(() => full.release()).not.toThrow();
    expect(budget.bytesInUse()).toBe(0);
    expect(budget.claim().take(100)).toBe(true);
  });

  it('ends an overload when exactly half of it is free', () => {
    const states: string[] = [];
    const budget = createInflationBudget({
      maxBytes: 100,
      onOverload: (state) => states.push(state),
    });
    const half = budget.claim();
    const rest = budget.claim();
    half.take(50);
    rest.take(50);
    expect(budget.claim().take(1)).toBe(false);
    rest.release();
    expect(states).toEqual(['started', 'ended']);
    expect(budget.claim().take(1)).toBe(true);
    expect(budget.claim().take(50)).toBe(false);
    expect(states).toEqual(['started', 'ended', 'started']);
  });

  it('refuses a size that is not a positive integer', () => {
    for (const maxBytes of [0, -1, 1.5, Number.NaN]) {
      expect(() => createInflationBudget({ maxBytes })).toThrow(
        new RangeError('the inflation budget must be a positive integer of bytes'),
      );
    }
    expect(() => createInflationBudget({ maxBytes: 1 })).not.toThrow();
  });
});
