import type { Store } from '../../storage/store.js';

/** Returns the store created for the running test (a fresh one per test). */
export type StoreUnderTest = () => Store;
