import {
  type AuditLogger,
  createIdGenerator,
  createOrganisation,
  formatTimestamp,
  type IdGenerator,
  type Organisation,
  type Role,
  type Store,
  StoreConflictError,
} from '@covgate/core';
import { checkOrganisationInput, issueSignInLink, signInLinkUrl } from '@covgate/core/internal';
import { ADMIN_MADE_PROVIDER, DEFAULT_ADMIN_USER, nameAdministrator } from './administrator.js';

/** The organisation the start-up sign-in link of a development server signs in to. */
export const DEVELOPMENT_ORGANISATION = 'dev';

export { ADMIN_MADE_PROVIDER, DEFAULT_ADMIN_USER } from './administrator.js';

/** What {@link loginLink} needs. */
export interface LoginLinkInput {
  /** Slug of an existing organisation. */
  slug: string;
  userId: string;
  /** The role the user joins with when not yet a member (a member keeps theirs); default owner. */
  role?: Role;
  /** `SESSION_SECRET` of the server that will accept the link. */
  sessionSecret: string;
  /** Where browsers reach the server (`PUBLIC_URL`). */
  publicUrl: string;
  now?: Date;
  ids?: IdGenerator;
}

/** A link just made; `url` is the only copy of its secret. */
export interface LoginLink {
  organisation: Organisation;
  url: string;
  /** `YYYY-MM-DDThh:mm:ssZ`. */
  expiresAt: string;
}

/** User ids a link may carry: what a session's `user_id` may be, within every store's column. */
const USER_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** Thrown when a link cannot be made for what was asked; the message says why. */
export class LoginLinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoginLinkError';
  }
}

/** Thrown when the organisation of a link does not exist. */
export class UnknownOrganisationError extends LoginLinkError {
  constructor(readonly slug: string) {
    super(`no organisation "${slug}": create it first with covgate-admin bootstrap ${slug}`);
    this.name = 'UnknownOrganisationError';
  }
}

/**
 * Makes a one-time sign-in link (15 minutes, one use) for `userId` in the organisation of that
 * slug, through core's `issueSignInLink` under the server's `SESSION_SECRET`.
 *
 * @throws OrganisationInputError - the slug is malformed or reserved for personal
 *   organisations (checked before any look-up, as `bootstrap` does).
 * @throws LoginLinkError - the user id is unusable, or ({@link UnknownOrganisationError}) no
 *   organisation has that slug.
 */
export async function loginLink(store: Store, input: LoginLinkInput): Promise<LoginLink> {
  checkOrganisationInput({ slug: input.slug });
  if (!USER_ID.test(input.userId)) {
    throw new LoginLinkError('--user must be 1-64 characters of A-Z, a-z, 0-9 and . _ : -');
  }
  const organisation = await store.findOrganisationBySlug(input.slug);
  if (!organisation) throw new UnknownOrganisationError(input.slug);
  await nameAdministrator(store, input.userId, input.now ?? new Date());
  const { token, record } = await issueSignInLink(store, {
    orgId: organisation.id,
    userId: input.userId,
    ...(input.role ? { role: input.role } : {}),
    sessionSecret: input.sessionSecret,
    ...(input.now ? { now: input.now } : {}),
    ...(input.ids ? { ids: input.ids } : {}),
  });
  return {
    organisation,
    url: signInLinkUrl(input.publicUrl, token),
    expiresAt: formatTimestamp(record.expiresAt),
  };
}

/** The longest `--name`: what the dashboard shows of a member. */
const NAME_MAX = 64;

/** What {@link newPersonLoginLink} needs: a link for someone covgate does not know yet. */
export interface NewPersonLinkInput extends Omit<LoginLinkInput, 'userId' | 'role'> {
  /** How the person shows among the members; without one they show by their user id. */
  name?: string | undefined;
  /** The role they join with (unless an invite they opened first gives theirs); default member. */
  role?: Role;
}

/** A link for a new person: {@link LoginLink} and the user id made for them. */
export interface NewPersonLink extends LoginLink {
  userId: string;
  /** The name they show by, or null. */
  name: string | null;
}

/**
 * A link for a new person: a fresh user id (`usr_` + ULID) that joins the organisation as
 * `role` (default `member`) when the link is used (or with the role of an invite the person opened before),
 * and, with `name`, a user record of that name (provider {@link ADMIN_MADE_PROVIDER}) so the
 * members list shows the name. Never the administrator's own user.
 *
 * @throws LoginLinkError - the name is empty, too long or has control characters, or no
 *   organisation has that slug.
 */
export async function newPersonLoginLink(
  store: Store,
  input: NewPersonLinkInput,
): Promise<NewPersonLink> {
  const name = input.name === undefined ? null : input.name.trim();
  if (name !== null && (name === '' || name.length > NAME_MAX || /\p{Cc}/u.test(name))) {
    throw new LoginLinkError(`--name must be 1-${NAME_MAX} printable characters`);
  }
  checkOrganisationInput({ slug: input.slug });
  if (!(await store.findOrganisationBySlug(input.slug))) {
    throw new UnknownOrganisationError(input.slug);
  }
  const ids = input.ids ?? createIdGenerator();
  const userId = ids.userId();
  if (name !== null) {
    await store.findOrCreateUser({
      id: userId,
      provider: ADMIN_MADE_PROVIDER,
      externalId: userId,
      login: name,
      createdAt: input.now ?? new Date(),
    });
  }
  const link = await loginLink(store, { ...input, ids, userId, role: input.role ?? 'member' });
  return { ...link, userId, name };
}

/**
 * The start-up link of a development server: the organisation {@link DEVELOPMENT_ORGANISATION}
 * (created on the first start, `organisation.create` on `audit`) and a link into it for
 * {@link DEFAULT_ADMIN_USER}.
 */
export async function developmentLoginLink(
  store: Store,
  input: Omit<LoginLinkInput, 'slug' | 'userId' | 'role'> & { audit?: AuditLogger },
): Promise<LoginLink> {
  const slug = DEVELOPMENT_ORGANISATION;
  if (!(await store.findOrganisationBySlug(slug))) {
    try {
      await createOrganisation(
        store,
        { slug, name: 'Development' },
        {
          ...(input.ids ? { ids: input.ids } : {}),
          ...(input.audit ? { audit: input.audit } : {}),
        },
      );
    } catch (error) {
      // Another process starting on the same database made it first.
      if (!(error instanceof StoreConflictError)) throw error;
    }
  }
  return loginLink(store, { ...input, slug, userId: DEFAULT_ADMIN_USER });
}
