import {
  type AuditLogger,
  createOrganisation,
  formatTimestamp,
  type IdGenerator,
  type Organisation,
  type Role,
  type Store,
  StoreConflictError,
} from '@covgate/core';
import { checkOrganisationInput, issueSignInLink, signInLinkUrl } from '@covgate/core/internal';

/** The organisation the start-up sign-in link of a development server signs in to. */
export const DEVELOPMENT_ORGANISATION = 'dev';

/** The user sign-in links are for unless told otherwise (the bootstrap command's too). */
export const DEFAULT_ADMIN_USER = 'usr_admin';

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
