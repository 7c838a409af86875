import { type Organisation, type Store, StoreConflictError } from '../storage/store.js';
import { createIdGenerator, type IdGenerator } from '../time/ids.js';
import { type Clock, systemClock, wholeSeconds } from '../time/timestamp.js';
import type { ResolvedIdentity, ResolveIdentityInput } from './oauth-options.js';

/** Options of {@link createPersonalOrganisationResolver}. */
export interface PersonalOrganisationResolverOptions {
  store: Pick<Store, 'findOrCreateUser' | 'findOrganisationBySlug' | 'createOrganisation'>;
  /** Clock of `createdAt` values (tests); the system clock by default. */
  clock?: Clock;
  /** Id generator (tests); a fresh one on `clock` by default. */
  ids?: IdGenerator;
}

/**
 * The reference server's `resolveIdentity`: each code-host account gets a covgate user and a
 * personal organisation on the free plan, both created at its first login. The organisation's
 * slug is `<code host>-<account id>` (e.g. `github-583231`): built from the stable account id,
 * never the login, because a login can be renamed and then taken by someone else.
 * Concurrent first logins of one account end with the same user and organisation.
 */
export function createPersonalOrganisationResolver(
  options: PersonalOrganisationResolverOptions,
): (input: ResolveIdentityInput) => Promise<ResolvedIdentity> {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? createIdGenerator({ now: () => clock.now().getTime() });
  return async ({ codeHost, user }) => {
    const createdAt = wholeSeconds(clock.now());
    const stored = await store.findOrCreateUser({
      id: ids.userId(),
      provider: codeHost,
      externalId: user.id,
      login: user.login,
      createdAt,
    });
    const slug = `${codeHost}-${user.id}`;
    const org =
      (await store.findOrganisationBySlug(slug)) ??
      (await createOrganisation(store, {
        id: ids.organisationId(),
        slug,
        name: user.login,
        plan: 'free',
        createdAt,
      }));
    return { userId: stored.id, orgId: org.id };
  };
}

async function createOrganisation(
  store: PersonalOrganisationResolverOptions['store'],
  org: Organisation,
): Promise<Organisation> {
  try {
    await store.createOrganisation(org);
    return org;
  } catch (error) {
    if (!(error instanceof StoreConflictError)) throw error;
    const winner = await store.findOrganisationBySlug(org.slug);
    if (!winner) throw error;
    return winner;
  }
}
