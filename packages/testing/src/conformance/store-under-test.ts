import type { Store } from '@covgate/core';

/** Returns the store created for the running test (a fresh one per test). */
export type StoreUnderTest = () => Store;
