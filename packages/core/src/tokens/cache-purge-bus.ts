/** A purge of the verified-token cache: one token (revoke, rotate) or everything (plan change). */
export type CachePurge = { kind: 'token'; tokenId: string } | { kind: 'all' };

/**
 * Carries verified-token cache purges between the processes of one deployment, so a revoke,
 * rotation or plan change on one process is refused on every other at once instead of after
 * the cache TTL. The reference server implements it with Redis pub/sub; core stays
 * driver-free. When the bus is down, purges stay local and other processes fall back to the
 * TTL bound (10 s).
 */
export interface CachePurgeBus {
  /** Tells the other processes. Must not throw: a bus that is down loses the message. */
  publish(purge: CachePurge): void;
  /** Registers the handler of purges published by the other processes. */
  subscribe(handler: (purge: CachePurge) => void): void;
}
