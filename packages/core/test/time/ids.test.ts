import { decodeTime } from 'ulid';
import { describe, expect, it } from 'vitest';
import { createIdGenerator, type IdPrefix, isPrefixedId } from '../../src/time/ids.js';

const T = 1_700_000_000_000;

describe('createIdGenerator', () => {
  it('prefixes each kind of id and appends a lowercase ULID', () => {
    const ids = createIdGenerator({ now: () => T, random: () => 0 });
    expect(ids.executionId()).toBe('exe_01hf7yat000000000000000000');
    expect(ids.organisationId()).toBe('org_01hf7yat000000000000000001');
    expect(ids.userId()).toBe('usr_01hf7yat000000000000000002');
    expect(ids.sessionId()).toBe('ses_01hf7yat000000000000000003');
  });

  it('encodes the injected time in the id', () => {
    const ids = createIdGenerator({ now: () => T + 42 });
    expect(decodeTime(ids.executionId().slice(4))).toBe(T + 42);
  });

  it('gives ids that sort in generation order within one millisecond', () => {
    const ids = createIdGenerator({ now: () => T });
    const generated = Array.from({ length: 1_000 }, () => ids.executionId());
    expect(new Set(generated).size).toBe(generated.length);
    expect([...generated].sort()).toEqual(generated);
  });

  it('keeps the order when the clock steps back', () => {
    const times = [T + 5, T + 5, T, T - 1_000, T + 6];
    const ids = createIdGenerator({ now: () => times.shift() ?? T + 7 });
    const generated = Array.from({ length: 6 }, () => ids.executionId());
    expect([...generated].sort()).toEqual(generated);
    expect(new Set(generated).size).toBe(generated.length);
  });

  it('makes valid, distinct ids from the real clock and randomness by default', () => {
    const ids = createIdGenerator();
    const first = ids.sessionId();
    const second = ids.sessionId();
    expect(isPrefixedId(first, 'ses')).toBe(true);
    expect(isPrefixedId(second, 'ses')).toBe(true);
    expect(second > first).toBe(true);
  });

  it('refuses times ulid cannot encode, including 0 which it would replace silently', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity, 2 ** 48]) {
      const ids = createIdGenerator({ now: () => bad });
      expect(() => ids.executionId(), String(bad)).toThrow(RangeError);
    }
  });

  it('refuses random values outside [0, 1)', () => {
    for (const bad of [1, -0.1, Number.NaN]) {
      const ids = createIdGenerator({ now: () => T, random: () => bad });
      expect(() => ids.userId(), String(bad)).toThrow(RangeError);
    }
  });
});

describe('isPrefixedId', () => {
  const ulid = '01hf7yat00zzzzzzzzzzzzzzzz';

  it('accepts each prefix followed by a lowercase ULID', () => {
    for (const prefix of ['exe', 'org', 'usr', 'ses'] as const) {
      expect(isPrefixedId(`${prefix}_${ulid}`, prefix)).toBe(true);
    }
    expect(isPrefixedId('exe_7zzzzzzzzzzzzzzzzzzzzzzzzz', 'exe')).toBe(true);
  });

  it('accepts what the generator produces', () => {
    const ids = createIdGenerator();
    expect(isPrefixedId(ids.executionId(), 'exe')).toBe(true);
    expect(isPrefixedId(ids.organisationId(), 'org')).toBe(true);
    expect(isPrefixedId(ids.userId(), 'usr')).toBe(true);
    expect(isPrefixedId(ids.sessionId(), 'ses')).toBe(true);
  });

  it('rejects another prefix, uppercase, and a missing or doubled separator', () => {
    expect(isPrefixedId(`org_${ulid}`, 'exe')).toBe(false);
    expect(isPrefixedId(`exe_${ulid.toUpperCase()}`, 'exe')).toBe(false);
    expect(isPrefixedId(`EXE_${ulid}`, 'exe')).toBe(false);
    expect(isPrefixedId(`exe${ulid}`, 'exe')).toBe(false);
    expect(isPrefixedId(`exe__${ulid}`, 'exe')).toBe(false);
    expect(isPrefixedId(ulid, 'exe')).toBe(false);
  });

  it('rejects wrong lengths, letters outside Crockford base32 and a first digit above 7', () => {
    expect(isPrefixedId(`exe_${ulid.slice(1)}`, 'exe')).toBe(false);
    expect(isPrefixedId(`exe_${ulid}0`, 'exe')).toBe(false);
    for (const letter of ['i', 'l', 'o', 'u', '-', '_']) {
      expect(isPrefixedId(`exe_${ulid.slice(0, 25)}${letter}`, 'exe'), letter).toBe(false);
    }
    expect(isPrefixedId('exe_80000000000000000000000000', 'exe')).toBe(false);
  });

  it('rejects surrounding whitespace, newlines and look-alike unicode', () => {
    expect(isPrefixedId(` exe_${ulid}`, 'exe')).toBe(false);
    expect(isPrefixedId(`exe_${ulid}\n`, 'exe')).toBe(false);
    expect(isPrefixedId(`exe_${ulid.slice(0, 25)}ｚ`, 'exe')).toBe(false);
    expect(isPrefixedId(`еxe_${ulid}`, 'exe')).toBe(false);
  });

  it('rejects non-strings and unknown prefixes', () => {
    for (const value of [null, undefined, 42, { toString: () => `exe_${ulid}` }, [`exe_${ulid}`]]) {
      expect(isPrefixedId(value, 'exe')).toBe(false);
    }
    expect(isPrefixedId(`tok_${ulid}`, 'tok' as IdPrefix)).toBe(false);
  });
});
