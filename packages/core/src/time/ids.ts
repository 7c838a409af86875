import { monotonicFactory, TIME_MAX } from 'ulid';

/** The prefixes of covgate's ULID-based identifiers. */
export type IdPrefix = 'exe' | 'org' | 'usr' | 'ses' | 'lnk' | 'inv' | 'dlv';

/** Creates prefixed ids: the prefix, `_`, then a lowercase ULID. */
export interface IdGenerator {
  /** `exe_` + ULID: an execution record. */
  executionId(): string;
  /** `org_` + ULID: an organisation. */
  organisationId(): string;
  /** `usr_` + ULID: a user. */
  userId(): string;
  /** `ses_` + ULID: the public id of a session. */
  sessionId(): string;
  /** `lnk_` + ULID: a one-time sign-in link. */
  signInLinkId(): string;
  /** `inv_` + ULID: an invite to an organisation. */
  inviteId(): string;
  /** `dlv_` + ULID: a delivery of the outbox. */
  deliveryId(): string;
}

/** Time and randomness of an {@link IdGenerator}, replaceable so that tests are exact. */
export interface IdGeneratorOptions {
  /** Milliseconds since the epoch, an integer in 1..2^48-1; defaults to `Date.now`. */
  now?: () => number;
  /** Uniform values in [0, 1); defaults to the platform's cryptographic generator. */
  random?: () => number;
}

/**
 * Creates an id generator whose ids, whatever their prefix, sort (as plain strings) in the
 * order they were generated: the ULID time part comes first, and within one millisecond, or
 * when the clock steps back, `ulid`'s monotonic factory increments the random part of the
 * previous id instead of drawing a new one. The order holds within one generator only, so
 * a process should share a single generator.
 *
 * ULIDs are lowercased: ids then read like the rest of the API's identifiers (token ids are
 * lowercase hex), they compare equal under case-sensitive and case-insensitive collations
 * alike, and the string order is unchanged because digits sort before letters in both cases.
 *
 * @throws RangeError from an id method when `now` returns a value that is not an integer in
 *   1..2^48-1 (`ulid` would silently replace 0 with the real time) or `random` returns a
 *   value outside [0, 1).
 */
export function createIdGenerator(options: IdGeneratorOptions = {}): IdGenerator {
  const now = options.now ?? Date.now;
  const random = options.random;
  const nextUlid = monotonicFactory(random === undefined ? undefined : () => checkedRandom(random));
  const idWith = (prefix: IdPrefix) => (): string =>
    `${prefix}_${nextUlid(checkedTime(now())).toLowerCase()}`;
  return {
    executionId: idWith('exe'),
    organisationId: idWith('org'),
    userId: idWith('usr'),
    sessionId: idWith('ses'),
    signInLinkId: idWith('lnk'),
    inviteId: idWith('inv'),
    deliveryId: idWith('dlv'),
  };
}

const PREFIXED_ID: Readonly<Record<IdPrefix, RegExp>> = {
  exe: /^exe_[0-7][0-9abcdefghjkmnpqrstvwxyz]{25}$/,
  org: /^org_[0-7][0-9abcdefghjkmnpqrstvwxyz]{25}$/,
  usr: /^usr_[0-7][0-9abcdefghjkmnpqrstvwxyz]{25}$/,
  ses: /^ses_[0-7][0-9abcdefghjkmnpqrstvwxyz]{25}$/,
  lnk: /^lnk_[0-7][0-9abcdefghjkmnpqrstvwxyz]{25}$/,
  inv: /^inv_[0-7][0-9abcdefghjkmnpqrstvwxyz]{25}$/,
  dlv: /^dlv_[0-7][0-9abcdefghjkmnpqrstvwxyz]{25}$/,
};

/**
 * Whether `value` is exactly `<prefix>_` followed by a lowercase ULID: 26 characters of the
 * lowercase Crockford base32 alphabet (no `i`, `l`, `o`, `u`), the first one 0..7 because a
 * larger one would overflow the ULID's 128 bits. Uppercase, other prefixes and non-strings
 * are false.
 */
export function isPrefixedId(value: unknown, prefix: IdPrefix): boolean {
  const pattern: RegExp | undefined = PREFIXED_ID[prefix];
  return typeof value === 'string' && pattern !== undefined && pattern.test(value);
}

function checkedTime(ms: number): number {
  if (!Number.isSafeInteger(ms) || ms < 1 || ms > TIME_MAX) {
    throw new RangeError(`id time must be an integer in 1..${TIME_MAX} ms, got ${ms}`);
  }
  return ms;
}

function checkedRandom(random: () => number): number {
  const value = random();
  if (!(value >= 0 && value < 1)) {
    throw new RangeError(`random values must be in [0, 1), got ${value}`);
  }
  return value;
}
