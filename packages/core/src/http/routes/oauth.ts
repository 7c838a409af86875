import { type CodeHost, CodeHostError, type CodeHostUser } from '../../oauth/code-host.js';
import {
  createLoginState,
  LOGIN_STATE_TTL_SECONDS,
  type LoginState,
  openLoginState,
  sealLoginState,
  stateFingerprint,
  statesMatch,
} from '../../oauth/login-state.js';
import type { OAuthSettings, ResolvedIdentity } from '../../oauth/oauth-options.js';
import { withinTimeBudget } from '../../oauth/time-budget.js';
import { joinOrganisation } from '../../organisations/membership.js';
import { syncLinkedMemberships } from '../../organisations/organisation-link.js';
import type { OrganisationLink } from '../../storage/store.js';
import { ApiError, ERRORS } from '../api-error.js';
import { cookieValue } from '../auth/credentials.js';
import { sessionCookie } from '../auth/session-cookie.js';
import { onlyValue } from '../query-value.js';
import type { Reply } from '../reply.js';
import type { Route } from '../router.js';
import type { RequestScope, RouteHandler } from '../services.js';
import { acceptPendingInvite, dashboardUrlAfterInvite } from '../sign-in/invite-acceptance.js';
import {
  clearedOAuthStateCookie,
  OAUTH_STATE_COOKIE,
  oauthStateCookie,
} from '../sign-in/oauth-cookies.js';
import { startSession } from '../sign-in/start-session.js';

/** Public messages of the OAuth routes. */
export const OAUTH_ERRORS = {
  invalidState: 'invalid state',
  loginDenied: 'login denied',
  missingCode: 'missing code',
  invalidCode: 'invalid code',
  codeHostError: 'code host error',
  codeHostUnavailable: 'code host unavailable',
  codeHostTimeout: 'code host timeout',
} as const;

/** What each code-host failure answers. */
const FAILURE_ANSWERS: Record<CodeHostError['failure'], [status: number, message: string]> = {
  'invalid-code': [400, OAUTH_ERRORS.invalidCode],
  failed: [502, OAUTH_ERRORS.codeHostError],
  unavailable: [502, OAUTH_ERRORS.codeHostUnavailable],
  timeout: [504, OAUTH_ERRORS.codeHostTimeout],
};

const MAX_CODE_LENGTH = 1024;
const ERROR_CODE = /^[a-z0-9_.-]{1,64}$/i;

/**
 * `GET /auth/{code_host}` and `GET /auth/{code_host}/callback`. Without the `oauth` option
 * both answer `501 not implemented`.
 */
export function oauthRoutes(oauth: OAuthSettings | undefined): Route<RouteHandler>[] {
  return [
    { method: 'GET', pattern: '/auth/{code_host}', handler: startLogin(oauth) },
    { method: 'GET', pattern: '/auth/{code_host}/callback', handler: completeLogin(oauth) },
  ];
}

interface SelectedCodeHost {
  oauth: OAuthSettings;
  name: string;
  codeHost: CodeHost;
}

function selectCodeHost(scope: RequestScope, oauth: OAuthSettings | undefined): SelectedCodeHost {
  if (!oauth) throw new ApiError(501, ERRORS.notImplemented);
  const name = scope.params.code_host as string;
  const codeHost = oauth.codeHosts.get(name);
  if (!codeHost) throw new ApiError(404, ERRORS.notFound);
  return { oauth, name, codeHost };
}

/** Starts a login: a sealed state + PKCE verifier in the state cookie, `302` to the code host. */
function startLogin(oauth: OAuthSettings | undefined): RouteHandler {
  return async (scope) => {
    const { oauth: settings, name, codeHost } = selectCodeHost(scope, oauth);
    const { services } = scope;
    const login = createLoginState(services.randomBytes, services.clock.now());
    const sealed = sealLoginState(login, name, settings.stateKey);
    const { state, codeVerifier } = login;
    return redirect(codeHost.authorizationUrl({ state, codeVerifier }).toString(), [
      oauthStateCookie(services.settings, sealed),
    ]);
  };
}

/**
 * Completes a login. `HEAD` is `405` (nothing used, the state cookie kept). Otherwise the
 * state cookie is cleared on every answer. Order: state (cookie seal,
 * age, constant-time match, single use) -> `error` from the code host -> `code` -> code
 * exchange within the time budget (with a code host that checks organisations, the user's
 * membership of every organisation linked on its host) -> `resolveIdentity` -> an invite opened
 * before signing in is accepted (the session then acts for its organisation) -> the user
 * joins the resolved organisation when not a member (owner when it has no member yet, else
 * member) -> the linked organisations are joined or left as the host says (a joined one, when
 * no invite was accepted, is the session's) -> session, cookie, `302` to the dashboard.
 */
function completeLogin(oauth: OAuthSettings | undefined): RouteHandler {
  return async (scope) => {
    // HEAD is safe: it must not use the state, the code or make a session, and without them
    // there is no answer a GET would give.
    if (scope.request.method === 'HEAD') {
      throw new ApiError(405, ERRORS.methodNotAllowed, { allow: 'GET, OPTIONS' });
    }
    const { services } = scope;
    scope.responseHeaders.append('set-cookie', clearedOAuthStateCookie(services.settings));
    const { oauth: settings, name, codeHost } = selectCodeHost(scope, oauth);
    const login = await claimLoginState(scope, settings, name);
    refuseCodeHostError(scope, name);
    const code = onlyValue(scope.url.searchParams, 'code');
    if (code === null || code === '') throw new ApiError(400, OAUTH_ERRORS.missingCode);
    if (code.length > MAX_CODE_LENGTH) throw new ApiError(400, OAUTH_ERRORS.invalidCode);

    // The organisations linked to organisations on this code host, checked with the sign-in's
    // token.
    const host = codeHost.organisationLinks;
    const links: OrganisationLink[] =
      host === undefined ? [] : await services.store.listOrganisationLinks(host);
    let user: CodeHostUser;
    try {
      user = await withinTimeBudget(settings.timeoutMs, (signal) =>
        codeHost.exchangeCode({
          code,
          codeVerifier: login.codeVerifier,
          signal,
          ...(links.length > 0 ? { organisations: links.map((link) => link.organisation) } : {}),
        }),
      );
    } catch (error) {
      throw codeHostFailure(scope, name, error);
    }
    const identity = await resolveIdentity(scope, settings, name, user);
    // The invite first: when it is for the same organisation, its role is the one that counts.
    const invited = await acceptPendingInvite(scope, identity.userId);
    await joinOrganisation(services, identity.orgId, identity.userId);
    const joinedLinked =
      host === undefined
        ? []
        : await syncLinkedMemberships(
            services,
            host,
            identity.userId,
            links,
            user.organisations ?? new Map(),
          );
    // A sign-in that joined a linked organisation opens it, as an accepted invite does.
    const sessionOrg = invited?.orgId ?? joinedLinked[0] ?? identity.orgId;
    const { token } = await startSession(services, identity.userId, sessionOrg);
    return redirect(dashboardUrlAfterInvite(settings.dashboardUrl, invited?.outcome), [
      sessionCookie(services.settings, token, services.settings.sessionLifetimeSeconds),
    ]);
  };
}

/** Opens the state cookie under the current key or, during a rotation, the previous one. */
function openSealedState(
  sealed: string,
  codeHost: string,
  oauth: OAuthSettings,
  services: RequestScope['services'],
): LoginState | null {
  const now = services.clock.now();
  const current = openLoginState(sealed, codeHost, oauth.stateKey, now);
  if (current !== null || oauth.previousStateKey === undefined) return current;
  return openLoginState(sealed, codeHost, oauth.previousStateKey, now);
}

async function claimLoginState(
  scope: RequestScope,
  oauth: OAuthSettings,
  codeHost: string,
): Promise<LoginState> {
  const { services } = scope;
  const sealed = cookieValue(scope.request, OAUTH_STATE_COOKIE);
  const presented = onlyValue(scope.url.searchParams, 'state');
  const login = sealed === null ? null : openSealedState(sealed, codeHost, oauth, services);
  if (login === null || presented === null || !statesMatch(login.state, presented)) {
    throw new ApiError(400, OAUTH_ERRORS.invalidState);
  }
  const expiresAt = new Date((login.issuedAt + LOGIN_STATE_TTL_SECONDS) * 1000);
  const first = await oauth.usedStates.claim(stateFingerprint(login.state), expiresAt);
  if (!first) throw new ApiError(400, OAUTH_ERRORS.invalidState);
  return login;
}

/** The code host sent the browser back with `?error=`: the user said no, or a misconfiguration. */
function refuseCodeHostError(scope: RequestScope, codeHost: string): void {
  if (!scope.url.searchParams.has('error')) return;
  const error = onlyValue(scope.url.searchParams, 'error');
  if (error === 'access_denied') {
    scope.services.logger.info(`[oauth] ${codeHost} login denied by the user`);
    throw new ApiError(400, OAUTH_ERRORS.loginDenied);
  }
  const shown = error !== null && ERROR_CODE.test(error) ? error : 'unrecognised';
  scope.services.logger.error(`[oauth] ${codeHost} refused the authorization: ${shown}`);
  throw new ApiError(502, OAUTH_ERRORS.codeHostError);
}

function codeHostFailure(scope: RequestScope, codeHost: string, error: unknown): ApiError {
  const failure =
    error instanceof CodeHostError
      ? error
      : new CodeHostError('failed', error instanceof Error ? error.message : String(error));
  const log = scope.services.logger;
  const line = `[oauth] ${codeHost} code exchange failed (${failure.failure}): ${failure.detail}`;
  if (failure.failure === 'invalid-code') log.warn(line);
  else log.error(line);
  const [status, message] = FAILURE_ANSWERS[failure.failure];
  return new ApiError(status, message);
}

async function resolveIdentity(
  scope: RequestScope,
  oauth: OAuthSettings,
  codeHost: string,
  user: CodeHostUser,
): Promise<ResolvedIdentity> {
  const { services } = scope;
  let identity: unknown;
  try {
    identity = await oauth.resolveIdentity({
      codeHost,
      user: { id: user.id, login: user.login },
    });
  } catch (error) {
    throw new Error(`resolveIdentity failed: ${error instanceof Error ? error.message : error}`);
  }
  if (!isResolvedIdentity(identity)) {
    throw new Error('resolveIdentity returned no userId and orgId strings');
  }
  const org = await services.store.findOrganisationById(identity.orgId);
  if (!org) {
    services.logger.error(
      `[oauth] resolveIdentity returned an unknown organisation ${identity.orgId}`,
    );
    throw new ApiError(500, ERRORS.internal);
  }
  return { userId: identity.userId, orgId: org.id };
}

function isResolvedIdentity(value: unknown): value is ResolvedIdentity {
  if (typeof value !== 'object' || value === null) return false;
  const { userId, orgId } = value as Record<string, unknown>;
  return typeof userId === 'string' && userId !== '' && typeof orgId === 'string' && orgId !== '';
}

function redirect(location: string, cookies: string[]): Reply {
  return { status: 302, body: null, headers: { location, 'cache-control': 'no-store' }, cookies };
}
