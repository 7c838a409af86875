import { createIdGenerator, type Organisation, type Store } from '@covgate/core';

/**
 * Creates the organisation `demo` in a fresh store, so that a session (and then API tokens)
 * can be made by hand against the in-memory store. A real application creates organisations
 * from its own sign-up flow.
 */
export async function seedDemoOrganisation(store: Store, now: Date): Promise<Organisation> {
  const organisation: Organisation = {
    id: createIdGenerator({ now: () => now.getTime() }).organisationId(),
    slug: 'demo',
    name: 'Demo',
    plan: 'free',
    createdAt: new Date(Math.floor(now.getTime() / 1000) * 1000),
  };
  await store.createOrganisation(organisation);
  return organisation;
}
