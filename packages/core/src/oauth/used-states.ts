/**
 * Remembers which login states were already used, so a replayed state cookie and `state`
 * pair fails even while its seal is still valid. Replace the in-memory default with a shared
 * one (e.g. Redis `SET key 1 NX PXAT expiresAt`) when several processes serve callbacks.
 */
export interface UsedStateRegistry {
  /**
   * Records `fingerprint` as used until `expiresAt`. True the first time, false while an
   * earlier claim of the same fingerprint has not expired. Concurrent claims of one
   * fingerprint: exactly one gets true.
   */
  claim(fingerprint: string, expiresAt: Date): Promise<boolean>;
}

/** Options of {@link createMemoryUsedStateRegistry}. */
export interface MemoryUsedStateRegistryOptions {
  /** Clock in epoch ms (tests); `Date.now` by default. */
  now?: () => number;
  /**
   * Most fingerprints kept; beyond it the oldest claim is forgotten early. Default 100 000,
   * so a flood of logins cannot grow memory without bound.
   */
  maxEntries?: number;
}

const DEFAULT_MAX_ENTRIES = 100_000;

/** A {@link UsedStateRegistry} in this process's memory. */
export function createMemoryUsedStateRegistry(
  options: MemoryUsedStateRegistryOptions = {},
): UsedStateRegistry {
  const { now = Date.now, maxEntries = DEFAULT_MAX_ENTRIES } = options;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new RangeError('maxEntries must be a positive integer');
  }
  const expiries = new Map<string, number>();
  const dropExpired = (at: number): void => {
    for (const [fingerprint, expiresAt] of expiries) {
      if (expiresAt > at) return;
      expiries.delete(fingerprint);
    }
  };
  return {
    async claim(fingerprint, expiresAt) {
      const at = now();
      dropExpired(at);
      const previous = expiries.get(fingerprint);
      if (previous !== undefined && previous > at) return false;
      expiries.delete(fingerprint);
      expiries.set(fingerprint, expiresAt.getTime());
      while (expiries.size > maxEntries) {
        const oldest = expiries.keys().next().value;
        if (oldest === undefined) break;
        expiries.delete(oldest);
      }
      return true;
    },
  };
}
