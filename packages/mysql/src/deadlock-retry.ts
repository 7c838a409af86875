import { isDeadlock } from './failures.js';

/** How often a transaction chosen as a deadlock victim is run in all. */
export const DEADLOCK_ATTEMPTS = 5;

/**
 * Runs `transaction` again when InnoDB picked it as a deadlock victim (it was rolled back
 * whole, so a rerun is safe), up to {@link DEADLOCK_ATTEMPTS} runs; any other error, or the
 * last deadlock, is thrown. Concurrent counter upserts can deadlock on a new key.
 */
export async function retryDeadlocks<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await transaction();
    } catch (error) {
      if (!isDeadlock(error) || attempt >= DEADLOCK_ATTEMPTS) throw error;
    }
  }
}
