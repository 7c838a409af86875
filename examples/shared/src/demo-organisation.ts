import { createOrganisation, type Organisation, type Store } from '@covgate/core';

/**
 * Creates the organisation `demo` in a fresh store through core's `createOrganisation` (what
 * `POST /v1/organisations` does), so that a session (and then API tokens) can be made by hand
 * against the in-memory store.
 */
export async function seedDemoOrganisation(store: Store, now: Date): Promise<Organisation> {
  return createOrganisation(store, { slug: 'demo', name: 'Demo' }, { clock: { now: () => now } });
}
