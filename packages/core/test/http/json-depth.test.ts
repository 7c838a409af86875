import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../src/http/json-depth.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('exceedsJsonDepth', () => {
  it('allows 16 levels by default and refuses 17', () => {
    expect(MAX_JSON_DEPTH).toBe(16);
    expect(exceedsJsonDepth(bytes(`${'['.repeat(16)}${']'.repeat(16)}`))).toBe(false);
    expect(exceedsJsonDepth(bytes(`${'['.repeat(17)}${']'.repeat(17)}`))).toBe(true);
  });

  it('counts objects and arrays alike, and levels, not brackets in total', () => {
    expect(exceedsJsonDepth(bytes('{"a":[{"b":[1]}]}'), 4)).toBe(false);
    expect(exceedsJsonDepth(bytes('{"a":[{"b":[[1]]}]}'), 4)).toBe(true);
    expect(exceedsJsonDepth(bytes('[[1],[2],[3],[4],[5]]'), 2)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(exceedsJsonDepth(bytes(`{"a":"${'['.repeat(100)}"}`), 1)).toBe(false);
    expect(exceedsJsonDepth(bytes(`{"a":"\\"${'{'.repeat(100)}"}`), 1)).toBe(false);
    expect(exceedsJsonDepth(bytes(`{"a":"\\\\",${'['.repeat(3)}`), 3)).toBe(true);
  });

  it('scans a mebibyte of [ in a few milliseconds', () => {
    const mebibyte = bytes('['.repeat(1024 * 1024));
    const started = performance.now();
    expect(exceedsJsonDepth(mebibyte, Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
  });
});
