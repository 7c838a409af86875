import { type Organisation, type Store, StoreConflictError } from '../storage/store.js';
import { createIdGenerator, type IdGenerator } from '../time/ids.js';
import { type Clock, systemClock, wholeSeconds } from '../time/timestamp.js';
import type { ResolvedIdentity, ResolveIdentityInput } from './oauth-options.js';

/** Options of {@link createPersonalOrganisationResolver}. */
export interface PersonalOrganisationResolverOptions {
  store: Pick<
    Store,
    'findOrCreateUser' | 'findPersonalOrganisation' | 'createPersonalOrganisation'
  >;
  /** Clock of `createdAt` values (tests); the system clock by default. */
  clock?: Clock;
  /** Id generator (tests); a fresh one on `clock` by default. */
  ids?: IdGenerator;
}

/** Slug attempts before giving up: the preferred slug, then suffixed ones. */
const SLUG_ATTEMPTS = 3;
const SUFFIX_LENGTH = 8;

/**
 * The reference server's `resolveIdentity`: each code-host account gets a covgate user and a
 * personal organisation on the free plan, both created at its first login. The organisation
 * is linked to the user by id (`findPersonalOrganisation`) and never looked up by slug, so an
 * organisation that merely carries the slug `<code host>-<account id>` is never joined. The
 * preferred slug is `<code host>-<account id>` (e.g. `github-583231`), built from the stable
 * account id, never the login; when another organisation already holds it, a suffix from the
 * new organisation's id is added (`github-583231-7k2m9xq4`). Concurrent first logins of one
 * account end with the same user and organisation.
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
    const org =
      (await store.findPersonalOrganisation(stored.id)) ??
      (await createPersonalOrganisation(store, stored.id, () => {
        const id = ids.organisationId();
        return { id, slug: `${codeHost}-${user.id}`, name: user.login, plan: 'free', createdAt };
      }));
    return { userId: stored.id, orgId: org.id };
  };
}

async function createPersonalOrganisation(
  store: PersonalOrganisationResolverOptions['store'],
  userId: string,
  candidate: () => Organisation,
): Promise<Organisation> {
  for (let attempt = 0; ; attempt += 1) {
    const org = candidate();
    if (attempt > 0) org.slug = `${org.slug}-${org.id.slice(-SUFFIX_LENGTH)}`;
    try {
      await store.createPersonalOrganisation(org, userId);
      return org;
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
      // A concurrent first login of the same account won: its organisation is the one.
      const winner = await store.findPersonalOrganisation(userId);
      if (winner) return winner;
      // Otherwise the slug belongs to an organisation that is not this user's.
      if (attempt + 1 >= SLUG_ATTEMPTS) throw error;
    }
  }
}
