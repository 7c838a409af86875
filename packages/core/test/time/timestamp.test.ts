import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createManualClock,
  fixedClock,
  formatTimestamp,
  parseTimestamp,
  systemClock,
} from '../../src/time/timestamp.js';

const at = (iso: string) => new Date(iso);

describe('formatTimestamp', () => {
  it('prints YYYY-MM-DDThh:mm:ssZ in UTC with the milliseconds dropped', () => {
    expect(formatTimestamp(at('2024-01-02T03:04:05.999Z'))).toBe('2024-01-02T03:04:05Z');
    expect(formatTimestamp(at('2024-01-02T03:04:05+02:00'))).toBe('2024-01-02T01:04:05Z');
  });

  it('floors milliseconds before 1970 too', () => {
    expect(formatTimestamp(new Date(-1))).toBe('1969-12-31T23:59:59Z');
  });

  it('covers the years 0000 to 9999', () => {
    expect(formatTimestamp(at('0000-01-01T00:00:00Z'))).toBe('0000-01-01T00:00:00Z');
    expect(formatTimestamp(at('9999-12-31T23:59:59.999Z'))).toBe('9999-12-31T23:59:59Z');
  });

  it('agrees with toISOString for every kind of instant, whatever was formatted before', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), {
          minLength: 1,
          maxLength: 20,
        }),
        (times) => {
          for (const ms of times) {
            const date = new Date(ms);
            expect(formatTimestamp(date)).toBe(`${date.toISOString().slice(0, 19)}Z`);
            // The next second: often the same day, formatted from the remembered date part.
            const later = new Date(ms + 1000);
            if (later.getTime() <= 253_402_300_799_999) {
              expect(formatTimestamp(later)).toBe(`${later.toISOString().slice(0, 19)}Z`);
            }
          }
        },
      ),
    );
  });

  it('rejects an invalid date and years the shape cannot hold', () => {
    expect(() => formatTimestamp(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => formatTimestamp(at('+010000-01-01T00:00:00Z'))).toThrow(RangeError);
    expect(() => formatTimestamp(at('-000001-12-31T23:59:59Z'))).toThrow(RangeError);
  });
});

describe('parseTimestamp', () => {
  it('reads a timestamp back to the same instant', () => {
    expect(parseTimestamp('2024-02-29T23:59:59Z')?.getTime()).toBe(
      Date.UTC(2024, 1, 29, 23, 59, 59),
    );
    expect(parseTimestamp('1970-01-01T00:00:00Z')?.getTime()).toBe(0);
  });

  it('returns null for impossible dates and times instead of rolling them over', () => {
    for (const value of [
      '2023-02-29T00:00:00Z',
      '2024-02-30T00:00:00Z',
      '2024-04-31T00:00:00Z',
      '2024-13-01T00:00:00Z',
      '2024-00-10T00:00:00Z',
      '2024-01-00T00:00:00Z',
      '2024-01-01T24:00:00Z',
      '2024-01-01T23:60:00Z',
      '2016-12-31T23:59:60Z',
    ]) {
      expect(parseTimestamp(value), value).toBeNull();
    }
  });

  it('returns null for any other ISO 8601 spelling', () => {
    for (const value of [
      '2024-01-02T03:04:05.000Z',
      '2024-01-02T03:04:05+00:00',
      '2024-01-02T03:04:05',
      '2024-01-02t03:04:05z',
      '2024-01-02 03:04:05Z',
      '2024-1-02T03:04:05Z',
      '+002024-01-02T03:04:05Z',
      '2024-01-02',
      ' 2024-01-02T03:04:05Z',
      '2024-01-02T03:04:05Z\n',
      '２０２４-01-02T03:04:05Z',
      '',
    ]) {
      expect(parseTimestamp(value), JSON.stringify(value)).toBeNull();
    }
  });

  it('returns null for non-string input', () => {
    for (const value of [null, undefined, 0, new Date(0), ['2024-01-02T03:04:05Z']]) {
      expect(parseTimestamp(value as unknown as string)).toBeNull();
    }
  });

  it('is the exact inverse of formatTimestamp for every instant of years 0000..9999', () => {
    fc.assert(
      fc.property(
        fc.integer({
          min: at('0000-01-01T00:00:00Z').getTime(),
          max: at('9999-12-31T23:59:59.999Z').getTime(),
        }),
        (ms) => {
          const text = formatTimestamp(new Date(ms));
          const parsed = parseTimestamp(text);
          expect(parsed?.getTime()).toBe(Math.floor(ms / 1000) * 1000);
          expect(formatTimestamp(parsed as Date)).toBe(text);
        },
      ),
    );
  });
});

describe('clocks', () => {
  it('reads the machine time from systemClock', () => {
    const before = Date.now();
    const now = systemClock.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('answers the same instant from a fixed clock, unaffected by mutating dates', () => {
    const start = at('2024-05-06T07:08:09Z');
    const clock = fixedClock(start);
    start.setUTCFullYear(2000);
    clock.now().setUTCFullYear(1999);
    expect(clock.now().toISOString()).toBe('2024-05-06T07:08:09.000Z');
  });

  it('moves a manual clock only when advanced, forwards or back', () => {
    const clock = createManualClock(at('2024-05-06T07:08:09Z'));
    expect(formatTimestamp(clock.now())).toBe('2024-05-06T07:08:09Z');
    clock.advance(301_000);
    expect(formatTimestamp(clock.now())).toBe('2024-05-06T07:13:10Z');
    clock.advance(-1_000);
    expect(formatTimestamp(clock.now())).toBe('2024-05-06T07:13:09Z');
  });

  it('rejects invalid start dates and non-finite steps', () => {
    expect(() => fixedClock(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => createManualClock(new Date(Number.NaN))).toThrow(RangeError);
    const clock = createManualClock(at('2024-05-06T07:08:09Z'));
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
    expect(() => clock.advance(Infinity)).toThrow(RangeError);
    expect(clock.now().toISOString()).toBe('2024-05-06T07:08:09.000Z');
  });
});
