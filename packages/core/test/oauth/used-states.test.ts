import { describe, expect, it } from 'vitest';
import { createMemoryUsedStateRegistry } from '../../src/oauth/used-states.js';

function clock(start = 1_000_000) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('createMemoryUsedStateRegistry', () => {
  it('grants the first claim of a fingerprint and refuses the next one until it expires', async () => {
    const time = clock();
    const registry = createMemoryUsedStateRegistry({ now: time.now });
    const expiresAt = new Date(time.now() + 600_000);
    expect(await registry.claim('a', expiresAt)).toBe(true);
    expect(await registry.claim('a', expiresAt)).toBe(false);
    expect(await registry.claim('b', expiresAt)).toBe(true);
    time.advance(599_999);
    expect(await registry.claim('a', expiresAt)).toBe(false);
    time.advance(1);
    expect(await registry.claim('a', new Date(time.now() + 600_000))).toBe(true);
  });

  it('grants exactly one of 20 concurrent claims of one fingerprint', async () => {
    const registry = createMemoryUsedStateRegistry();
    const expiresAt = new Date(Date.now() + 60_000);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => registry.claim('x', expiresAt)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('forgets the oldest claim beyond maxEntries', async () => {
    const time = clock();
    const registry = createMemoryUsedStateRegistry({ now: time.now, maxEntries: 2 });
    const expiresAt = new Date(time.now() + 600_000);
    for (const fingerprint of ['a', 'b', 'c'])
      expect(await registry.claim(fingerprint, expiresAt)).toBe(true);
    expect(await registry.claim('c', expiresAt)).toBe(false);
    expect(await registry.claim('a', expiresAt)).toBe(true);
  });

  it('refuses a maxEntries that is not a positive integer', () => {
    for (const maxEntries of [0, -1, 1.5, Number.NaN]) {
      expect(() => createMemoryUsedStateRegistry({ maxEntries })).toThrow(RangeError);
    }
  });
});
