import { errorCode, type StoreLogger } from './kit/failures.js';
import { STORE_OPERATIONS } from './kit/operations.js';
import { type Store, StoreConflictError, StoreFailureError } from './store.js';

type AnyMethod = (...args: unknown[]) => Promise<unknown>;

/**
 * The store the API uses: each of `store`'s operations, looked up at every call, with a
 * failure its store did not log (any error but a {@link StoreFailureError}, which a guarded
 * store logged already, or a {@link StoreConflictError}, which is an answer) logged once as
 * `[component] <message>` under its {@link STORE_OPERATIONS} component and rethrown as a
 * {@link StoreFailureError}. So a store of your own logs like the SQL stores, and nothing
 * above the store logs a store failure again.
 */
export function logStoreFailures(store: Store, logger: StoreLogger): Store {
  const methods = store as unknown as Record<string, AnyMethod>;
  const logged: Record<string, unknown> = {
    close: () => store.close(),
    ...(store.ping === undefined ? {} : { ping: () => store.ping?.() }),
  };
  for (const [operation, { component }] of Object.entries(STORE_OPERATIONS)) {
    logged[operation] = async (...args: unknown[]) => {
      try {
        return await methods[operation]!(...args);
      } catch (error) {
        if (error instanceof StoreFailureError || error instanceof StoreConflictError) throw error;
        logger.error(`[${component}] ${error instanceof Error ? error.message : String(error)}`);
        throw new StoreFailureError(`[${component}] ${operation} failed: ${errorCode(error)}`);
      }
    };
  }
  return logged as unknown as Store;
}
