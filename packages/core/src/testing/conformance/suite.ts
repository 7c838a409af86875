import { afterEach, beforeEach, describe } from 'vitest';
import type { Store } from '../../storage/store.js';
import { describeConcurrency } from './concurrency.js';
import { describeExecutions } from './executions.js';
import { describeOrganisations } from './organisations.js';
import { describeSessions } from './sessions.js';
import { describeTokens } from './tokens.js';
import { describeUsers } from './users.js';
import { describeWebhookEvents } from './webhook-events.js';

/** How the conformance suite gets the store under test. */
export interface StoreConformanceOptions {
  /**
   * Called before each test. Returns a ready store; it need not be empty, because every
   * test works on fresh random ids and slugs (a shared database that is not truncated between
   * tests works). The suite calls `close()` on it after each test.
   */
  createStore: () => Promise<Store>;
}

/**
 * Registers the storage conformance tests (vitest `describe`/`it`) for a `Store`
 * implementation: every method of every storage interface, its ordering, uniqueness and
 * atomicity guarantees, and behaviour under concurrent calls. Call it at the top level of a
 * test file:
 *
 * ```ts
 * runStoreConformanceSuite('memory', { createStore: async () => createMemoryStore() });
 * ```
 */
export function runStoreConformanceSuite(name: string, options: StoreConformanceOptions): void {
  describe(`${name} store conformance`, () => {
    let current: Store | undefined;

    beforeEach(async () => {
      current = await options.createStore();
    });

    afterEach(async () => {
      const store = current;
      current = undefined;
      await store?.close();
    });

    const store = (): Store => {
      if (!current) throw new Error('the store is only available inside a test');
      return current;
    };

    describeOrganisations(store);
    describeUsers(store);
    describeTokens(store);
    describeSessions(store);
    describeExecutions(store);
    describeWebhookEvents(store);
    describeConcurrency(store);
  });
}
