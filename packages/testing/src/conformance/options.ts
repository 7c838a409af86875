import type { Store } from '@covgate/core';

/** How the conformance suite gets the store under test. */
export interface StoreConformanceOptions {
  /**
   * Called before each test. Returns a ready store; it need not be empty, because every
   * test works on fresh random ids and slugs (a shared database that is not truncated between
   * tests works). The suite calls `close()` on it after each test.
   */
  createStore: () => Promise<Store>;
  /**
   * Opens a second store on the same data as the one `createStore` just made (another
   * connection pool, another handle on the file), as a second process would. When given,
   * the concurrency tests also race calls through the two stores. Closed after each test.
   */
  createPeerStore?: () => Promise<Store>;
}
