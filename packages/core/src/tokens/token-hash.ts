import { type Algorithm, hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';

/** One-way hashing of raw API tokens for storage, and verification of presented ones. */
export interface TokenHasher {
  /** Hashes a raw token into an argon2id PHC string (`$argon2id$v=19$m=..,t=..,p=..$salt$hash`). */
  hash(token: string): Promise<string>;
  /**
   * Checks a presented raw token against a stored hash in constant time. Resolves `false`,
   * never rejects, when the token does not match, the stored hash is malformed, or the hash
   * was made with another pepper.
   */
  verify(hash: string, token: string): Promise<boolean>;
  /**
   * Like {@link TokenHasher.verify}, and says which pepper matched: `current`, `previous`
   * (the hash was made under the previous pepper of a rotation, so the caller re-hashes the
   * token with {@link TokenHasher.hash}) or null. Hashers without it know one pepper only.
   */
  match?(hash: string, token: string): Promise<PepperMatch>;
}

/** Which pepper a stored token hash was made with, or null when the token does not match. */
export type PepperMatch = 'current' | 'previous' | null;

/** Settings of {@link createTokenHasher}. */
export interface TokenHasherOptions {
  /**
   * Server-side secret (`TOKEN_PEPPER`) mixed into every hash as argon2's `secret`, so a
   * leaked database alone is not enough to test guesses. Changing it invalidates every
   * stored hash. Omit it to hash without a pepper; an empty string is refused.
   */
  pepper?: string;
  /**
   * The pepper being rotated out (`TOKEN_PEPPER_PREVIOUS`): hashes made under it still
   * verify, through {@link TokenHasher.match}, which reports them as `previous` so they are
   * re-hashed under `pepper`. Needs `pepper`; ignored when empty or equal to it. Each
   * failed verification then costs two argon2 runs, so drop it once the rotation is over.
   */
  previousPepper?: string;
  /** Memory cost in KiB; OWASP default 19456 (19 MiB). */
  memoryCost?: number;
  /** Number of passes; OWASP default 2. */
  timeCost?: number;
  /** Degree of parallelism; OWASP default 1. */
  parallelism?: number;
}

/** OWASP Password Storage Cheat Sheet, argon2id minimum configuration (m=19 MiB, t=2, p=1). */
const OWASP_ARGON2ID = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

// The package declares `Algorithm` as an ambient const enum, which `isolatedModules` cannot
// read at run time, so its value is spelled out.
const ARGON2ID = 2 as Algorithm.Argon2id;

/**
 * Creates the argon2id hasher for API tokens (`@node-rs/argon2`), with OWASP parameters by
 * default and the optional pepper as argon2's keyed `secret`.
 *
 * @throws RangeError when the pepper is empty or a cost is not a positive integer.
 */
export function createTokenHasher(options: TokenHasherOptions = {}): TokenHasher {
  const { pepper } = options;
  if (pepper !== undefined && pepper.length === 0) {
    throw new RangeError('TOKEN_PEPPER must not be empty; omit it to hash without a pepper');
  }
  const memoryCost = positiveInteger('memoryCost', options.memoryCost ?? OWASP_ARGON2ID.memoryCost);
  const timeCost = positiveInteger('timeCost', options.timeCost ?? OWASP_ARGON2ID.timeCost);
  const parallelism = positiveInteger(
    'parallelism',
    options.parallelism ?? OWASP_ARGON2ID.parallelism,
  );
  const { previousPepper } = options;
  if (previousPepper && pepper === undefined) {
    throw new RangeError('TOKEN_PEPPER_PREVIOUS needs TOKEN_PEPPER: the pepper it rotates to');
  }
  const secret = pepper === undefined ? undefined : new TextEncoder().encode(pepper);
  const previousSecret =
    previousPepper && previousPepper !== pepper
      ? new TextEncoder().encode(previousPepper)
      : undefined;
  const verifyWith = async (key: Uint8Array | undefined, hash: string, token: string) => {
    try {
      return await argon2Verify(hash, token, { secret: key });
    } catch {
      // A stored hash that does not parse cannot match anything.
      return false;
    }
  };
  const match = async (hash: string, token: string): Promise<PepperMatch> => {
    if (await verifyWith(secret, hash, token)) return 'current';
    // Every miss under the current pepper tries the previous one as well, so an unknown id
    // (checked against a dummy hash) costs what a wrong secret costs.
    if (previousSecret && (await verifyWith(previousSecret, hash, token))) return 'previous';
    return null;
  };

  return {
    hash: (token) =>
      argon2Hash(token, { algorithm: ARGON2ID, memoryCost, timeCost, parallelism, secret }),
    verify: async (hash, token) => (await match(hash, token)) !== null,
    match,
  };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer`);
  }
  return value;
}
