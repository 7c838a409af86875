import {
  ArcticFetchError,
  CodeChallengeMethod,
  OAuth2Client,
  OAuth2RequestError,
  type OAuth2Tokens,
  UnexpectedErrorResponseBodyError,
  UnexpectedResponseError,
} from 'arctic';
import {
  type CodeExchange,
  type CodeHost,
  CodeHostError,
  type CodeHostUser,
  type OrganisationMembership,
} from './code-host.js';
import { requireHttpUrl, requireText } from './code-host-options.js';

/** Options of {@link githubCodeHost}. */
export interface GithubCodeHostOptions {
  /** The OAuth app's client id. */
  clientId: string;
  /** The OAuth app's client secret; sent only to the token endpoint (HTTP Basic). */
  clientSecret: string;
  /** The callback URL registered with the app, e.g. `https://api.example.com/auth/github/callback`. */
  redirectUri: string;
  /** Default `https://github.com/login/oauth/authorize`; GitHub Enterprise: `https://<host>/login/oauth/authorize`. */
  authorizeUrl?: string;
  /** Default `https://github.com/login/oauth/access_token`. */
  tokenUrl?: string;
  /** Default `https://api.github.com`; GitHub Enterprise: `https://<host>/api/v3`. */
  apiBaseUrl?: string;
  /**
   * Requested scopes; default `read:user` (the account's id and login) and `read:org` (its
   * memberships of the GitHub organisations linked to covgate organisations).
   */
  scopes?: readonly string[];
  /**
   * Whether this code host's sign-ins synchronise the organisations linked to GitHub
   * organisations; default true. Turn it off on all but one GitHub code host of a server
   * (github.com and an Enterprise server, say): a link names an organisation, not an instance.
   */
  organisationLinks?: boolean;
}

const FACTORY = 'githubCodeHost';
const GITHUB_AUTHORIZE_URL = 'https://github.com/login/oauth/authorize';
const GITHUB_TOKEN_URL = 'https://github.com/login/oauth/access_token';
const GITHUB_API_BASE_URL = 'https://api.github.com';
const DEFAULT_SCOPES = ['read:user', 'read:org'];

/** OAuth error codes meaning "this code cannot be used", as opposed to a misconfiguration. */
const REFUSED_CODE_ERRORS = new Set(['bad_verification_code', 'invalid_grant']);
/** An OAuth error code is logged only when it looks like one; anything else is someone's text. */
const OAUTH_ERROR_CODE = /^[a-z0-9_.-]{1,64}$/i;
const MAX_LOGIN_LENGTH = 100;

/**
 * The GitHub code host (github.com or GitHub Enterprise), on `arctic`'s generic OAuth 2.0
 * client so that the authorize request carries a PKCE S256 challenge and the token request
 * its verifier (arctic's GitHub provider sends no PKCE). The account is read from
 * `{apiBaseUrl}/user`, and its membership of each organisation asked for from
 * `{apiBaseUrl}/user/memberships/orgs/{org}` (`read:org`), with the sign-in's token.
 *
 * @throws TypeError at creation for an empty client id or secret, or a URL option that is not
 *   an absolute http(s) URL (the message names the option, never a value).
 */
export function githubCodeHost(options: GithubCodeHostOptions): CodeHost {
  requireText(FACTORY, options.clientId, 'clientId');
  requireText(FACTORY, options.clientSecret, 'clientSecret');
  const redirectUri = requireHttpUrl(FACTORY, options.redirectUri, 'redirectUri');
  const authorizeUrl = requireHttpUrl(
    FACTORY,
    options.authorizeUrl ?? GITHUB_AUTHORIZE_URL,
    'authorizeUrl',
  );
  const tokenUrl = requireHttpUrl(FACTORY, options.tokenUrl ?? GITHUB_TOKEN_URL, 'tokenUrl');
  const apiBaseUrl = requireHttpUrl(
    FACTORY,
    options.apiBaseUrl ?? GITHUB_API_BASE_URL,
    'apiBaseUrl',
  );
  const userUrl = `${apiBaseUrl.replace(/\/+$/, '')}/user`;
  const membershipUrl = (org: string) => `${userUrl}/memberships/orgs/${encodeURIComponent(org)}`;
  const scopes = [...(options.scopes ?? DEFAULT_SCOPES)];
  const client = new OAuth2Client(options.clientId, options.clientSecret, redirectUri);

  return {
    ...(options.organisationLinks === false ? {} : { organisationLinks: 'github' as const }),
    authorizationUrl({ state, codeVerifier }) {
      return client.createAuthorizationURLWithPKCE(
        authorizeUrl,
        state,
        CodeChallengeMethod.S256,
        codeVerifier,
        scopes,
      );
    },
    async exchangeCode(input: CodeExchange): Promise<CodeHostUser> {
      const { code, codeVerifier, signal } = input;
      let tokens: OAuth2Tokens;
      try {
        tokens = await client.validateAuthorizationCode(tokenUrl, code, codeVerifier);
      } catch (error) {
        throw tokenEndpointError(error);
      }
      const accessToken = accessTokenOf(tokens);
      const user = await fetchUser(userUrl, accessToken, signal);
      const organisations = input.organisations ?? [];
      if (organisations.length === 0) return user;
      const answers = await Promise.all(
        organisations.map(
          async (org) =>
            [org, await membershipOf(membershipUrl(org), accessToken, signal)] as const,
        ),
      );
      return { ...user, organisations: new Map(answers) };
    },
  };
}

/** GitHub answers a refused code with `200 {"error": ...}`, which arctic returns as tokens. */
function accessTokenOf(tokens: OAuth2Tokens): string {
  const data = tokens.data as { error?: unknown; access_token?: unknown };
  if (typeof data.error === 'string') throw oauthError(data.error);
  if (typeof data.access_token !== 'string' || data.access_token === '') {
    throw new CodeHostError('failed', 'token endpoint answered without an access token');
  }
  return data.access_token;
}

function tokenEndpointError(error: unknown): CodeHostError {
  if (error instanceof OAuth2RequestError) return oauthError(error.code);
  if (error instanceof ArcticFetchError) {
    return new CodeHostError('unavailable', 'token endpoint unreachable');
  }
  if (error instanceof UnexpectedErrorResponseBodyError) {
    return new CodeHostError(
      'failed',
      `token endpoint answered ${error.status} with no OAuth error`,
    );
  }
  if (error instanceof UnexpectedResponseError) {
    return new CodeHostError('failed', `token endpoint answered ${error.status}`);
  }
  return new CodeHostError('failed', 'token exchange failed');
}

function oauthError(code: string): CodeHostError {
  const shown = OAUTH_ERROR_CODE.test(code) ? code : 'unrecognised';
  return new CodeHostError(
    REFUSED_CODE_ERRORS.has(code) ? 'invalid-code' : 'failed',
    `token endpoint error ${shown}`,
  );
}

const GITHUB_HEADERS = {
  accept: 'application/vnd.github+json',
  'user-agent': 'covgate',
  'x-github-api-version': '2022-11-28',
};

/**
 * GitHub's "Get an organization membership for the authenticated user": `200` with `state`
 * `active` is a member, `pending` (an invitation not accepted) and `404` (not affiliated) are
 * not; anything else (`403` for a token without `read:org` or an organisation that restricts
 * OAuth apps, an outage, a time-out) says nothing either way.
 */
async function membershipOf(
  url: string,
  accessToken: string,
  signal: AbortSignal,
): Promise<OrganisationMembership> {
  const response = await getAsUser(url, accessToken, signal);
  if (response === null) return 'unknown';
  if (response.status === 404) {
    await discardBody(response);
    return 'not-member';
  }
  if (!response.ok) {
    await discardBody(response);
    return 'unknown';
  }
  const body = (await response.json().catch(() => null)) as { state?: unknown } | null;
  if (body?.state === 'active') return 'member';
  if (body?.state === 'pending') return 'not-member';
  return 'unknown';
}

async function fetchUser(
  url: string,
  accessToken: string,
  signal: AbortSignal,
): Promise<CodeHostUser> {
  const response = await getAsUser(url, accessToken, signal);
  if (response === null) throw new CodeHostError('unavailable', 'user endpoint unreachable');
  if (!response.ok) {
    await discardBody(response);
    throw new CodeHostError('failed', `user endpoint answered ${response.status}`);
  }
  const body: unknown = await response.json().catch(() => null);
  const user = parseUser(body);
  if (!user)
    throw new CodeHostError('failed', 'user endpoint answered without a valid id and login');
  return user;
}

/** GETs `url` of GitHub's REST API as the user of `accessToken`; null when it is unreachable. */
function getAsUser(
  url: string,
  accessToken: string,
  signal: AbortSignal,
): Promise<Response | null> {
  const headers = { ...GITHUB_HEADERS, authorization: `Bearer ${accessToken}` };
  return fetch(url, { headers, signal }).catch(() => null);
}

/** Lets go of an answer whose body is not read, so that its connection is freed. */
async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/** GitHub's account: a positive integer `id` and a non-empty `login`. */
function parseUser(body: unknown): CodeHostUser | null {
  if (typeof body !== 'object' || body === null) return null;
  const { id, login } = body as { id?: unknown; login?: unknown };
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) return null;
  if (typeof login !== 'string' || login === '' || login.length > MAX_LOGIN_LENGTH) return null;
  return { id: String(id), login };
}
