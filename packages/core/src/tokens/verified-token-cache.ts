import * as crypto from 'node:crypto';
import type { CachePurge } from './cache-purge-bus.js';

/** Settings of {@link VerifiedTokenCache}. */
export interface VerifiedTokenCacheOptions {
  /** How long a verified token stays cached, in ms: default and maximum 10 000. */
  ttlMs?: number;
  /** Most entries kept; the oldest is evicted beyond it. Default 10 000. */
  maxEntries?: number;
  /** Clock in epoch ms; injectable so tests are exact. */
  now?: () => number;
  /** Called after each local purge or clear (to tell other processes); not for {@link VerifiedTokenCache.applyPurge}. */
  onPurge?: (purge: CachePurge) => void;
}

interface CacheEntry<T> {
  tokenId: string;
  value: T;
  expiresAt: number;
}

/** Upper bound on the TTL: a revoke in another process must take effect within it. */
const MAX_TTL_MS = 10_000;
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * Short-lived, in-process memory of tokens that passed argon2 verification, so argon2 stays
 * off the hot path. Entries are keyed by the SHA-256 of the raw token, never the token itself.
 *
 * The cache only answers "this exact raw token verified less than `ttlMs` ago". A hit must
 * still be checked against token status and expiry by the caller, and revoking or rotating a
 * token in this process must call {@link VerifiedTokenCache.purgeTokenId}; other processes
 * see the change through `onPurge` (a `CachePurgeBus`) at once, or at the latest when
 * their entry expires.
 */
export class VerifiedTokenCache<T> {
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly onPurge: ((purge: CachePurge) => void) | undefined;
  /** Insertion order is expiry order (one TTL for all), so the first entry is the oldest. */
  private readonly entries = new Map<string, CacheEntry<T>>();
  /** Bumped by every purge and clear; see {@link VerifiedTokenCache.version}. */
  private purges = 0;

  /** @throws RangeError when `ttlMs` is not in (0, 10 000] or `maxEntries` is not a positive integer. */
  constructor(options: VerifiedTokenCacheOptions = {}) {
    const { ttlMs = MAX_TTL_MS, maxEntries = DEFAULT_MAX_ENTRIES, now = Date.now } = options;
    if (!(ttlMs > 0 && ttlMs <= MAX_TTL_MS)) {
      throw new RangeError(`ttlMs must be greater than 0 and at most ${MAX_TTL_MS}`);
    }
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError('maxEntries must be a positive integer');
    }
    this.ttlMs = ttlMs;
    this.maxEntries = maxEntries;
    this.now = now;
    this.onPurge = options.onPurge;
  }

  /** The value cached for this raw token, or `undefined` when absent or expired. */
  get(rawToken: string): T | undefined {
    const key = cacheKey(rawToken);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (!(this.now() < entry.expiresAt)) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /**
   * A stamp to read before looking a token up in the store and to pass to `set` afterwards:
   * a revoke that purged the cache while the (slow) verification ran then keeps the stale
   * verification out of the cache.
   */
  version(): number {
    return this.purges;
  }

  /**
   * Remembers that `rawToken` (whose id is `tokenId`) verified, with the value to return on
   * a hit. Replaces any entry of the same token and restarts its TTL. With `since` (from
   * {@link VerifiedTokenCache.version}), nothing is stored when a purge or clear happened
   * in between.
   */
  set(rawToken: string, tokenId: string, value: T, since?: number): void {
    if (since !== undefined && since !== this.purges) return;
    const key = cacheKey(rawToken);
    const now = this.now();
    this.entries.delete(key);
    this.dropExpired(now);
    this.entries.set(key, { tokenId, value, expiresAt: now + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  /** Forgets every entry of this token id: call it when the token is revoked or rotated. */
  purgeTokenId(tokenId: string): void {
    this.purgeAndAnnounce({ kind: 'token', tokenId });
  }

  /** Forgets everything. */
  clear(): void {
    this.purgeAndAnnounce({ kind: 'all' });
  }

  /**
   * Entries held, expired ones not yet dropped included (a gauge for metrics): every `set`
   * first drops the expired ones, and a lookup drops the one it finds expired.
   */
  get size(): number {
    return this.entries.size;
  }

  private purgeAndAnnounce(purge: CachePurge): void {
    this.applyPurge(purge);
    this.onPurge?.(purge);
  }

  /** Applies a purge another process announced, without announcing it again. */
  applyPurge(purge: CachePurge): void {
    this.purges += 1;
    if (purge.kind === 'all') {
      this.entries.clear();
      return;
    }
    for (const [key, entry] of this.entries) {
      if (entry.tokenId === purge.tokenId) this.entries.delete(key);
    }
  }

  private dropExpired(now: number): void {
    for (const [key, entry] of this.entries) {
      if (now < entry.expiresAt) return;
      this.entries.delete(key);
    }
  }
}

// One-shot `crypto.hash` (Node 20.12 and later) skips the Hash object of `createHash`.
const sha256Hex: (value: string) => string =
  typeof crypto.hash === 'function'
    ? (value) => crypto.hash('sha256', value, 'hex')
    : (value) => crypto.createHash('sha256').update(value, 'utf8').digest('hex');

function cacheKey(rawToken: string): string {
  return sha256Hex(rawToken);
}
