import type { AuditLogger } from '../audit/audit-sink.js';
import { joinOrganisation } from '../organisations/membership.js';
import { resolveSessionLifetimeSeconds, sessionExpiresAt } from '../sessions/session-rules.js';
import { hashSessionToken } from '../sessions/session-token-hash.js';
import { ROLES, type Role } from '../storage/store.js';
import { type Clock, wholeSeconds } from '../time/timestamp.js';
import { generateSessionToken } from '../tokens/token-format.js';
import {
  findOrganisation,
  ProvisioningInputError,
  type ProvisioningTarget,
  provisioningContext,
} from './provisioning-target.js';

/** What {@link createSession} makes a session for. */
export interface CreateSessionInput {
  /** The organisation's slug or id. */
  org: string;
  /** The user, as your application names it: 1-128 of `A-Z a-z 0-9 . _ : -`. */
  userId: string;
  /**
   * The role the user joins with when not yet a member; default `owner` for an organisation's
   * first member, `member` after. A member keeps the role they have.
   */
  role?: Role;
}

/** Options of {@link createSession}, all for a store target only. */
export interface CreateSessionOptions {
  /** Store target: the server's `SESSION_SECRET` (required); sessions are stored as its HMAC. */
  sessionSecret?: string;
  /** Store target: lifetime in seconds (default 24 h, at most 7 days), as `createApi` takes it. */
  sessionLifetimeSeconds?: number;
  /** Store target: receives `member.add` and `session.create`; an API's go to its audit sink. */
  audit?: AuditLogger;
  /** Store target: source of the times; the system clock by default. */
  clock?: Clock;
}

/** A session made by {@link createSession}. */
export interface ProvisionedSession {
  /** The bearer token (`cvgs_...`): the only copy, it is stored as an HMAC. */
  token: string;
  sessionId: string;
  userId: string;
  orgId: string;
  /** The user's role in the organisation. */
  role: Role;
  expiresAt: Date;
}

const USER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Creates a session for a user of an organisation from code, as `POST /v1/sessions/create`
 * does without the service token: the user joins the organisation when not a member (see
 * {@link CreateSessionInput.role}), and the token works at once as `Authorization: Bearer`
 * on the API (it manages API tokens, members and invites as the user's role allows).
 *
 * ```ts
 * const api = createApi({ store, sessionSecret });
 * const { token } = await createSession(api, { org: 'acme', userId: 'alice' });
 * ```
 *
 * Given an API made by `createApi`, its store, `sessionSecret`, session lifetime and audit
 * sink are used. Given a `Store` (a provisioning script without an API), pass the server's
 * `sessionSecret`: a session stored under another secret is refused with `401`.
 *
 * @throws ProvisioningInputError - an unknown organisation, or a malformed user id or role.
 * @throws TypeError - a store target without `sessionSecret`, store-only options given with
 *   an API, or an object with `handle` that `createApi` did not make.
 */
export async function createSession(
  target: ProvisioningTarget,
  input: CreateSessionInput,
  options: CreateSessionOptions = {},
): Promise<ProvisionedSession> {
  const { sessionSecret, sessionLifetimeSeconds } = options;
  const context = provisioningContext(
    target,
    options,
    { sessionSecret, sessionLifetimeSeconds },
    'createSession',
  );
  const secret = context.api?.settings.sessionSecret ?? sessionSecret;
  if (!secret) throw new TypeError('createSession: sessionSecret is required with a store');
  const lifetime =
    context.api?.settings.sessionLifetimeSeconds ??
    resolveSessionLifetimeSeconds(sessionLifetimeSeconds);
  if (typeof input.userId !== 'string' || !USER_ID.test(input.userId)) {
    throw new ProvisioningInputError('userId', 'invalid parameter: userId');
  }
  if (input.role !== undefined && !ROLES.includes(input.role)) {
    throw new ProvisioningInputError('role', 'invalid parameter: role');
  }
  const org = await findOrganisation(context.store, input.org);
  const member = await joinOrganisation(context, org.id, input.userId, input.role);
  const token = generateSessionToken(context.api?.randomBytes);
  const createdAt = wholeSeconds(context.clock.now());
  const session = {
    id: context.ids.sessionId(),
    tokenHash: hashSessionToken(token, secret),
    userId: input.userId,
    orgId: org.id,
    createdAt,
    expiresAt: sessionExpiresAt(createdAt, lifetime),
  };
  await context.store.insertSession(session);
  context.audit.record({
    type: 'session.create',
    userId: session.userId,
    orgId: session.orgId,
    sessionId: session.id,
  });
  return {
    token,
    sessionId: session.id,
    userId: session.userId,
    orgId: session.orgId,
    role: member.role,
    expiresAt: session.expiresAt,
  };
}
