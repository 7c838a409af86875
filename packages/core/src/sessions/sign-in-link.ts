import type { Role, SignInLinkRecord, Store } from '../storage/store.js';
import { createIdGenerator, type IdGenerator } from '../time/ids.js';
import { wholeSeconds } from '../time/timestamp.js';
import { generateSignInLinkToken, type RandomBytes } from '../tokens/token-format.js';
import { hashSessionToken } from './session-token-hash.js';

/** How long a sign-in link can be used: 15 minutes. */
export const SIGN_IN_LINK_LIFETIME_SECONDS = 900;

/** Path of the sign-in link route, under the API's base path. */
export const SIGN_IN_LINK_PATH = '/auth/link';

/** What {@link issueSignInLink} needs. */
export interface IssueSignInLinkInput {
  /** The organisation the link signs in to (it must exist when the link is used). */
  orgId: string;
  /** The user the session will be for. */
  userId: string;
  /** The role the user joins with when not yet a member of the organisation; default `owner`. */
  role?: Role;
  /** `SESSION_SECRET` of the server that will accept the link: the link is stored under its HMAC. */
  sessionSecret: string;
  /** When the link is made; now by default. */
  now?: Date;
  /** Id generator (share the process's one when there is one). */
  ids?: IdGenerator;
  /** Secure random source (tests). */
  randomBytes?: RandomBytes;
}

/** A link just issued; `token` is the only copy of its secret. */
export interface IssuedSignInLink {
  record: SignInLinkRecord;
  /** `cvgl_` + 64 hex: the `token` query parameter of the link. */
  token: string;
}

/**
 * Issues a one-time sign-in link: stores the HMAC of a fresh `cvgl_` token (keyed with
 * `SESSION_SECRET`, as session tokens are) valid {@link SIGN_IN_LINK_LIFETIME_SECONDS}, and
 * returns the token. Opened once before it expires, the link signs `userId` in to `orgId`,
 * which the user joins with `role` if not a member yet (a member keeps their role).
 */
export async function issueSignInLink(
  store: Pick<Store, 'insertSignInLink'>,
  input: IssueSignInLinkInput,
): Promise<IssuedSignInLink> {
  const createdAt = wholeSeconds(input.now ?? new Date());
  const ids = input.ids ?? createIdGenerator();
  const token = generateSignInLinkToken(input.randomBytes);
  const record: SignInLinkRecord = {
    id: ids.signInLinkId(),
    tokenHash: hashSessionToken(token, input.sessionSecret),
    userId: input.userId,
    orgId: input.orgId,
    role: input.role ?? 'owner',
    createdAt,
    expiresAt: new Date(createdAt.getTime() + SIGN_IN_LINK_LIFETIME_SECONDS * 1000),
    usedAt: null,
  };
  await store.insertSignInLink(record);
  return { record, token };
}

/**
 * The URL of a sign-in link: `<baseUrl>/auth/link?token=<token>`, where `baseUrl` is where
 * browsers reach the API (its base path included), with or without a trailing slash.
 */
export function signInLinkUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${SIGN_IN_LINK_PATH}?token=${encodeURIComponent(token)}`;
}
