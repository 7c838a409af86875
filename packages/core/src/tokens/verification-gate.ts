import { availableParallelism } from 'node:os';

/** Settings of {@link createVerificationGate}. */
export interface VerificationGateOptions {
  /** Argon2 verifications running at once. Default: the CPU count, between 1 and 4. */
  maxConcurrent?: number;
  /** Verifications waiting for a slot; one more is shed. Default 16. */
  maxQueued?: number;
  /**
   * Slots beyond `maxConcurrent` that only `trusted` verifications may take, so a known
   * client starts at once instead of waiting for the flood's running verifications. Default 1.
   */
  reservedForTrusted?: number;
  /**
   * Told once when shedding starts and once when the queue has drained again, so an
   * overload writes two log lines, not one per refused request.
   */
  onOverload?: (state: 'started' | 'ended', load: { running: number; queued: number }) => void;
}

/** How urgent a verification is: a token recently verified from this address goes first. */
export type VerificationPriority = 'trusted' | 'normal';

/** Thrown when a verification is shed: the API answers `503` with `Retry-After`. */
export class VerificationOverloadError extends Error {
  constructor() {
    super('too many token verifications queued');
    this.name = 'VerificationOverloadError';
  }
}

/**
 * A cap on concurrent argon2 verifications with a short bounded queue, so a flood of bad
 * tokens costs a bounded amount of CPU and memory and never an unbounded wait. Work beyond
 * the queue is refused at once ({@link VerificationOverloadError}). A `trusted`
 * verification (a token already verified from this address) may also take the reserved
 * slots, waits ahead of `normal` ones and, when the queue is full, takes the place of the
 * newest `normal` waiter, so a flood of unknown tokens cannot shut out a known client.
 */
export interface VerificationGate {
  /** Runs `task` when a slot is free; rejects with {@link VerificationOverloadError} when shed. */
  run<T>(priority: VerificationPriority, task: () => Promise<T>): Promise<T>;
  /**
   * Whether a verification of this priority would be admitted now (run or queued), so a
   * request that would be shed is refused before it costs a store lookup. A `false` counts
   * as shedding (for `onOverload`).
   */
  admits(priority: VerificationPriority): boolean;
  /** Verifications running and waiting now. */
  load(): { running: number; queued: number };
}

interface Waiter {
  start: () => void;
  shed: () => void;
}

/** Creates a {@link VerificationGate}. @throws RangeError for a non-positive or non-integer bound. */
export function createVerificationGate(options: VerificationGateOptions = {}): VerificationGate {
  const maxConcurrent = options.maxConcurrent ?? Math.min(4, Math.max(1, availableParallelism()));
  const maxQueued = options.maxQueued ?? 16;
  const reserved = options.reservedForTrusted ?? 1;
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) {
    throw new RangeError('maxConcurrent must be a positive integer');
  }
  if (!Number.isInteger(maxQueued) || maxQueued < 0) {
    throw new RangeError('maxQueued must be a non-negative integer');
  }
  if (!Number.isInteger(reserved) || reserved < 0) {
    throw new RangeError('reservedForTrusted must be a non-negative integer');
  }
  const limit = (priority: VerificationPriority) =>
    priority === 'trusted' ? maxConcurrent + reserved : maxConcurrent;
  let running = 0;
  let shedding = false;
  const trusted: Waiter[] = [];
  const normal: Waiter[] = [];

  const release = () => {
    running -= 1;
    const next = running < limit('trusted') ? trusted.shift() : undefined;
    const following = next ?? (running < limit('normal') ? normal.shift() : undefined);
    if (following) {
      running += 1;
      following.start();
    }
    if (shedding && trusted.length + normal.length === 0) {
      shedding = false;
      options.onOverload?.('ended', { running, queued: 0 });
    }
  };
  const shed = () => {
    if (!shedding) {
      shedding = true;
      options.onOverload?.('started', { running, queued: trusted.length + normal.length });
    }
  };

  const admit = (priority: VerificationPriority): Promise<void> | null => {
    if (running < limit(priority)) {
      running += 1;
      return null;
    }
    if (trusted.length + normal.length >= maxQueued) {
      const displaced = priority === 'trusted' ? normal.pop() : undefined;
      shed();
      if (!displaced) throw new VerificationOverloadError();
      displaced.shed();
    }
    return new Promise<void>((resolve, reject) => {
      (priority === 'trusted' ? trusted : normal).push({
        start: resolve,
        shed: () => reject(new VerificationOverloadError()),
      });
    });
  };

  return {
    admits(priority) {
      if (running < limit(priority) || trusted.length + normal.length < maxQueued) return true;
      if (priority === 'trusted' && normal.length > 0) return true;
      shed();
      return false;
    },
    async run(priority, task) {
      const waiting = admit(priority);
      if (waiting) await waiting;
      try {
        return await task();
      } finally {
        release();
      }
    },
    load: () => ({ running, queued: trusted.length + normal.length }),
  };
}
