import {
  createIdGenerator,
  formatTimestamp,
  generateSessionToken,
  hashSessionToken,
  type Organisation,
  type Plan,
  resolveSessionLifetimeSeconds,
  type Store,
  StoreConflictError,
  sessionExpiresAt,
  wholeSeconds,
} from '@covgate/core';

/** What {@link bootstrapOrganisation} needs. */
export interface BootstrapInput {
  slug: string;
  plan: Plan;
  userId: string;
  sessionSecret: string;
  sessionLifetimeSeconds: number | undefined;
  now?: Date;
}

/** What it made; the session token is the only copy. */
export interface BootstrapResult {
  organisation: Organisation;
  created: boolean;
  sessionId: string;
  sessionToken: string;
  expiresAt: string;
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/**
 * Creates an organisation (or finds the existing one with that slug) and a first session,
 * with the same lifetime rules and token HMAC as the API, so a newcomer can call the API
 * at once.
 */
export async function bootstrapOrganisation(
  store: Store,
  input: BootstrapInput,
): Promise<BootstrapResult> {
  if (!SLUG.test(input.slug)) {
    throw new Error('organisation slug must be 1-64 of a-z, 0-9 and inner hyphens');
  }
  const now = wholeSeconds(input.now ?? new Date());
  const ids = createIdGenerator();
  let organisation = await store.findOrganisationBySlug(input.slug);
  let created = false;
  if (!organisation) {
    organisation = {
      id: ids.organisationId(),
      slug: input.slug,
      name: input.slug,
      plan: input.plan,
      createdAt: now,
    };
    try {
      await store.createOrganisation(organisation);
      created = true;
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
      organisation = (await store.findOrganisationBySlug(input.slug)) as Organisation;
    }
  }
  const sessionToken = generateSessionToken();
  const lifetime = resolveSessionLifetimeSeconds(input.sessionLifetimeSeconds);
  const session = {
    id: ids.sessionId(),
    tokenHash: hashSessionToken(sessionToken, input.sessionSecret),
    userId: input.userId,
    orgId: organisation.id,
    createdAt: now,
    expiresAt: sessionExpiresAt(now, lifetime),
  };
  await store.insertSession(session);
  return {
    organisation,
    created,
    sessionId: session.id,
    sessionToken,
    expiresAt: formatTimestamp(session.expiresAt),
  };
}
