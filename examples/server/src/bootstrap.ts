import {
  type AuditLogger,
  checkOrganisationInput,
  createIdGenerator,
  createOrganisation,
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
  /** Receives `organisation.create` (when made here) and `session.create`. */
  audit?: AuditLogger;
}

/** What it made; the session token is the only copy. */
export interface BootstrapResult {
  organisation: Organisation;
  created: boolean;
  sessionId: string;
  sessionToken: string;
  expiresAt: string;
}

/**
 * Creates an organisation through core's `createOrganisation` (or finds the existing one with
 * that slug) and a first session, with the same lifetime rules and token HMAC as the API, so
 * a newcomer can call the API at once.
 *
 * @throws OrganisationInputError - the slug is malformed or reserved (checked before the
 *   existing organisation is looked up, so a personal organisation is never reused).
 */
export async function bootstrapOrganisation(
  store: Store,
  input: BootstrapInput,
): Promise<BootstrapResult> {
  const now = wholeSeconds(input.now ?? new Date());
  const ids = createIdGenerator();
  // Before any look-up: reusing an existing organisation must not hand out a session in a
  // personal one (`github-4242`) either.
  checkOrganisationInput({ slug: input.slug, plan: input.plan });
  let organisation = await store.findOrganisationBySlug(input.slug);
  let created = false;
  if (!organisation) {
    try {
      organisation = await createOrganisation(
        store,
        { slug: input.slug, plan: input.plan },
        { clock: { now: () => now }, ids, ...(input.audit ? { audit: input.audit } : {}) },
      );
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
  input.audit?.record({
    type: 'session.create',
    userId: input.userId,
    orgId: organisation.id,
    sessionId: session.id,
  });
  return {
    organisation,
    created,
    sessionId: session.id,
    sessionToken,
    expiresAt: formatTimestamp(session.expiresAt),
  };
}
