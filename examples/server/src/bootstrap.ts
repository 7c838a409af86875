import {
  type AuditLogger,
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
} from '@covgate/core';
import { checkOrganisationInput } from '@covgate/core/internal';
import { wholeSeconds } from '@covgate/core/storage-kit';
import { nameAdministrator } from './administrator.js';

/** What {@link bootstrapOrganisation} needs. */
export interface BootstrapInput {
  slug: string;
  plan: Plan;
  userId: string;
  sessionSecret: string;
  sessionLifetimeSeconds: number | undefined;
  now?: Date;
  /** Receives `organisation.create` (when made here), `member.add` and `session.create`. */
  audit?: AuditLogger;
}

/**
 * Makes the bootstrap user an owner of the organisation: added as one when not a member,
 * promoted when a member with another role (`member.add` / `member.role` on `audit`).
 */
async function makeOwner(
  store: Store,
  orgId: string,
  userId: string,
  now: Date,
  audit: AuditLogger | undefined,
): Promise<void> {
  if (await store.addMember({ orgId, userId, role: 'owner', createdAt: now })) {
    audit?.record({ type: 'member.add', orgId, userId, role: 'owner' });
    return;
  }
  const member = await store.findMember(orgId, userId);
  if (member && member.role !== 'owner') {
    await store.changeMemberRole(orgId, userId, 'owner');
    audit?.record({ type: 'member.role', orgId, userId, role: 'owner', by: 'covgate-admin' });
  }
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
 * that slug), makes the user one of its owners, and a first session, with the same lifetime
 * rules and token HMAC as the API, so a newcomer can call the API at once.
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
  await nameAdministrator(store, input.userId, now);
  await makeOwner(store, organisation.id, input.userId, now, input.audit);
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
