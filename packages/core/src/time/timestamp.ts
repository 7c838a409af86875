/** A source of the current time, injected so that tests control it exactly. */
export type Clock = { now(): Date };

/** A {@link Clock} whose time can be moved forward (or back) by a test. */
export type ManualClock = Clock & {
  /** Moves the clock by `ms` milliseconds; negative values step it back. */
  advance(ms: number): void;
};

const TIMESTAMP_SHAPE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/**
 * Formats an instant as the API's timestamp, exactly `YYYY-MM-DDThh:mm:ssZ` in UTC.
 * Milliseconds are dropped by flooring (`12:00:00.999` -> `12:00:00Z`, also before 1970).
 *
 * @throws RangeError for an invalid date or a year outside 0000..9999 (not representable).
 */
export function formatTimestamp(date: Date): string {
  const seconds = Math.floor(date.getTime() / 1000);
  const day = Math.floor(seconds / SECONDS_PER_DAY);
  // NaN (an invalid date) never equals the remembered day: toISOString then throws.
  if (day !== formattedDay.day) formattedDay = { day, prefix: datePrefix(date) };
  const second = seconds - day * SECONDS_PER_DAY;
  return `${formattedDay.prefix}${TWO_DIGITS[Math.floor(second / 3600)]}:${TWO_DIGITS[Math.floor(second / 60) % 60]}:${TWO_DIGITS[second % 60]}Z`;
}

const SECONDS_PER_DAY = 86_400;
const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));

/**
 * `YYYY-MM-DDT` of the last day formatted: lists of executions are mostly one day's, and
 * `toISOString` costs more than the rest of formatting a timestamp.
 */
let formattedDay = { day: Number.NaN, prefix: '' };

function datePrefix(date: Date): string {
  // toISOString throws RangeError itself for an invalid date.
  const iso = date.toISOString();
  // `YYYY-MM-DDThh:mm:ss.sssZ`; other lengths carry a `+YYYYYY`/`-YYYYYY` expanded year.
  if (iso.length !== 24) {
    throw new RangeError(`year of ${iso} is outside 0000..9999`);
  }
  return iso.slice(0, 11);
}

/**
 * Parses a timestamp in exactly the form {@link formatTimestamp} produces, so that
 * `formatTimestamp(parseTimestamp(s)!) === s`. Anything else is null: fractions, offsets,
 * lowercase `t`/`z`, impossible dates (`2023-02-29`), `24:00:00`, leap seconds, non-strings.
 */
export function parseTimestamp(value: string): Date | null {
  if (typeof value !== 'string' || !TIMESTAMP_SHAPE.test(value)) {
    return null;
  }
  const date = new Date(value);
  // Date rolls impossible fields over (Feb 30 -> Mar 1), so only an exact round trip counts.
  if (Number.isNaN(date.getTime()) || formatTimestamp(date) !== value) {
    return null;
  }
  return date;
}

/** The real time of the machine. */
/** The instant rounded down to the whole second: stored and displayed timestamps carry no fraction. */
export function wholeSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/** The real clock. */
export const systemClock: Clock = { now: () => new Date() };

/**
 * A clock that always answers `date`. Each call returns a new `Date`, so a caller mutating
 * the result cannot move the clock.
 *
 * @throws RangeError for an invalid date.
 */
export function fixedClock(date: Date): Clock {
  const time = validTime(date);
  return { now: () => new Date(time) };
}

/**
 * A clock that starts at `start` and moves only when told to by `advance(ms)`.
 *
 * @throws RangeError for an invalid start date, or from `advance` for a non-finite step.
 */
export function createManualClock(start: Date): ManualClock {
  let time = validTime(start);
  return {
    now: () => new Date(time),
    advance(ms: number): void {
      if (!Number.isFinite(ms)) {
        throw new RangeError(`cannot advance a clock by ${ms} ms`);
      }
      time += ms;
    },
  };
}

function validTime(date: Date): number {
  const time = date.getTime();
  if (Number.isNaN(time)) {
    throw new RangeError('invalid date');
  }
  return time;
}
