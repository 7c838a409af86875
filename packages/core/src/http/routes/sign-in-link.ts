import { joinOrganisation } from '../../organisations/membership.js';
import { hashSessionToken } from '../../sessions/session-token-hash.js';
import { SIGN_IN_LINK_LIFETIME_SECONDS } from '../../sessions/sign-in-link.js';
import type { SignInLinkRecord } from '../../storage/store.js';
import { parseSignInLinkToken } from '../../tokens/token-format.js';
import { ApiError, ERRORS } from '../api-error.js';
import { isDocumentNavigation, isForeignSiteRequest } from '../auth/fetch-metadata.js';
import { sessionCookie } from '../auth/session-cookie.js';
import { confirmPageReply, PRIVATE_ANSWER_HEADERS } from '../html-page.js';
import { onlyValue } from '../query-value.js';
import type { Reply } from '../reply.js';
import { readFormBody } from '../request-body.js';
import type { RequestScope, RouteHandler } from '../services.js';
import { acceptPendingInvite, dashboardUrlAfterInvite } from '../sign-in/invite-acceptance.js';
import { startSession } from '../sign-in/start-session.js';

/** The one answer to a link that is malformed, unknown, used or expired. */
export const SIGN_IN_LINK_REFUSED = 'invalid or expired link';

const PRIVATE = PRIVATE_ANSWER_HEADERS;

function refuse(): never {
  throw new ApiError(400, SIGN_IN_LINK_REFUSED, { ...PRIVATE });
}

/** The link stored under the token's HMAC with `SESSION_SECRET`, or `SESSION_SECRET_PREVIOUS`. */
async function useLink(scope: RequestScope, token: string): Promise<SignInLinkRecord | null> {
  const { services } = scope;
  const { sessionSecret, previousSessionSecret } = services.settings;
  const now = services.clock.now();
  const use = (secret: string) =>
    services.store.useSignInLink(hashSessionToken(token, secret), now);
  const current = await use(sessionSecret);
  if (current !== null || previousSessionSecret === undefined) return current;
  return use(previousSessionSecret);
}

/**
 * Uses the link: an invite opened before signing in is accepted, the user joins the link's
 * organisation with the link's role when not a member yet, then a session for them (`session.create
 * ... method=link`) acting for the invite's organisation or else the link's, its cookie, and
 * `303` to the dashboard. Unknown, used and expired links get one refusal.
 */
async function signIn(scope: RequestScope, raw: string | null): Promise<Reply> {
  const token = parseSignInLinkToken(raw);
  if (token === null) refuse();
  const link = await useLink(scope, token);
  if (link === null) refuse();
  const { services } = scope;
  const org = await services.store.findOrganisationById(link.orgId);
  if (!org) refuse();
  // The invite first: when it is for the link's organisation, its role is the one that counts.
  const invited = await acceptPendingInvite(scope, link.userId);
  await joinOrganisation(services, org.id, link.userId, link.role);
  const session = await startSession(services, link.userId, invited?.orgId ?? org.id, 'link');
  const location = dashboardUrlAfterInvite(services.settings.dashboardUrl, invited?.outcome);
  return {
    status: 303,
    body: null,
    headers: { location, ...PRIVATE },
    cookies: [
      sessionCookie(services.settings, session.token, services.settings.sessionLifetimeSeconds),
    ],
  };
}

/**
 * `GET /auth/link?token=`: a person's browser opening the link (a top-level navigation, per
 * its `Sec-Fetch-*` headers) is signed in at once. Anything else (link previewers, mail
 * scanners, scripts, and every `HEAD`, which is safe and answered by this route) gets a page
 * whose button posts the token, and the link stays unused. A malformed token is refused
 * without a look-up.
 */
export const getSignInLink: RouteHandler = async (scope) => {
  const raw = onlyValue(scope.query, 'token');
  if (parseSignInLinkToken(raw) === null) refuse();
  if (isDocumentNavigation(scope.request)) return signIn(scope, raw);
  const minutes = SIGN_IN_LINK_LIFETIME_SECONDS / 60;
  return confirmPageReply({
    title: 'Sign in to covgate',
    paragraphs: [
      `This sign-in link works once, within ${minutes} minutes of being made.`,
      'Continue to sign in and open the dashboard.',
    ],
    // Relative to the page's own URL (`.../auth/link`): right under any mount path.
    action: 'link',
    fields: { token: raw as string },
    button: 'Sign in',
  });
};

/**
 * `POST /auth/link` (the page's form, `token=`): refuses a form posted from another site's
 * page (`403`, so nobody is signed in to someone else's account unawares), then signs in.
 */
export const postSignInLink: RouteHandler = async (scope) => {
  if (isForeignSiteRequest(scope.request)) throw new ApiError(403, ERRORS.forbidden);
  const form = await readFormBody(scope.request);
  return signIn(scope, onlyValue(form, 'token'));
};
