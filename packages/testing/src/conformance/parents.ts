import type { Store } from '@covgate/core';
import { buildOrganisation, buildUser, randomSuffix } from '../fixtures.js';

/**
 * Creates a fresh organisation and returns its id. Tests store tokens, sessions and
 * executions only under existing parents, so stores may enforce foreign keys.
 */
export async function givenOrganisation(store: Store): Promise<string> {
  const org = buildOrganisation();
  await store.createOrganisation(org);
  return org.id;
}

/** Creates a fresh user and organisation, the parents of a session. */
export async function givenUserAndOrganisation(
  store: Store,
): Promise<{ userId: string; orgId: string }> {
  const user = await store.findOrCreateUser(buildUser());
  return { userId: user.id, orgId: await givenOrganisation(store) };
}

/**
 * Builds a record with `build` for a freshly created user and organisation, stores it with
 * `insert` and returns it: a session or a sign-in link whose parents exist.
 */
export async function givenOfNewUser<T>(
  store: Store,
  build: (parents: { userId: string; orgId: string }) => T,
  insert: (record: T) => Promise<unknown>,
): Promise<T> {
  const record = build(await givenUserAndOrganisation(store));
  await insert(record);
  return record;
}

/** A repository of a freshly created organisation, so tests never see each other's records. */
export async function givenRepo(store: Store): Promise<{ orgId: string; repo: string }> {
  return { orgId: await givenOrganisation(store), repo: `repo-${randomSuffix()}` };
}
