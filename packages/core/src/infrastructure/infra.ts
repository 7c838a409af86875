import type { Logger } from 'pino';
import { StoreFailureError } from '../storage/store.js';

/**
 * An infrastructure failure (store, limiter...) already logged with its component prefix.
 * Maps to a plain 500.
 */
export class InfrastructureError extends Error {
  constructor(readonly component: string) {
    super(`${component} failure`);
    this.name = 'InfrastructureError';
  }
}

/** Component prefixes of infrastructure log lines. */
export type Component =
  | 'sessions'
  | 'tokens'
  | 'organisations'
  | 'executions'
  | 'webhooks'
  | 'outbox'
  | 'ratelimit'
  | 'oauth';

/**
 * Runs a storage (or other infrastructure) call; a failure (a store conflict no route
 * expects, such as an id collision, included) is logged as `[component] <message>` and
 * rethrown as an {@link InfrastructureError} (a {@link StoreFailureError} is not logged
 * again: its store did), which the API answers with a bare
 * `500 {"error":"internal error"}`.
 */
export async function infra<T>(
  logger: Logger,
  component: Component,
  operation: () => Promise<T>,
): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof InfrastructureError) throw error;
    // The store logged it already, with its prefix: one line per failure.
    if (error instanceof StoreFailureError) throw new InfrastructureError(component);
    const message = error instanceof Error ? error.message : String(error);
    logger.error(`[${component}] ${message}`);
    throw new InfrastructureError(component);
  }
}
