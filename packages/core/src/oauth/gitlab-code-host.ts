import { CodeChallengeMethod, OAuth2Client, type OAuth2Tokens } from 'arctic';
import { type CodeExchange, type CodeHost, CodeHostError, type CodeHostUser } from './code-host.js';
import { requireHttpUrl, requireText } from './code-host-options.js';
import { listedMemberships, type MembershipListing, pathField } from './listed-memberships.js';
import {
  fetchCodeHostUser,
  type ReadOAuthError,
  tokenEndpointError,
} from './oauth2-host-answers.js';

/** Options of {@link gitlabCodeHost}. */
export interface GitlabCodeHostOptions {
  /** The OAuth application's id (GitLab: *Applications*, confidential). */
  clientId: string;
  /** The application's secret; sent only to the token endpoint. */
  clientSecret: string;
  /** The callback URL registered with the application, e.g. `https://api.example.com/auth/gitlab/callback`. */
  redirectUri: string;
  /** The instance: default `https://gitlab.com`; a self-managed GitLab's address. */
  baseUrl?: string;
  /**
   * Requested scopes; default `read_user` (the account's id and username) and `read_api` (its
   * groups, for the groups linked to covgate organisations). The application must allow them.
   */
  scopes?: readonly string[];
  /**
   * Whether this instance's sign-ins synchronise the organisations linked to GitLab groups;
   * default true. Turn it off on all but one GitLab code host of a server: a link names a
   * group, not an instance.
   */
  organisationLinks?: boolean;
}

const FACTORY = 'gitlabCodeHost';
const GITLAB_URL = 'https://gitlab.com';
const DEFAULT_SCOPES = ['read_user', 'read_api'];
/** Guest (10) or more: every role of a member, not the public groups anyone sees. */
const MEMBER_ACCESS_LEVEL = '10';
/** GitLab's largest page. */
const GROUPS_PAGE_SIZE = 100;
/** OAuth error codes meaning "this code cannot be used", as opposed to a misconfiguration. */
const REFUSED_CODE_ERRORS = new Set(['invalid_grant']);

/**
 * The GitLab code host (gitlab.com or self-managed) for browser login, on `arctic`'s generic
 * OAuth 2.0 client: authorization code with a PKCE S256 challenge at `{baseUrl}/oauth/authorize`
 * and `{baseUrl}/oauth/token`, the account read from `{baseUrl}/api/v4/user`. With groups
 * linked to covgate organisations, the user's membership of each is read from their groups
 * (`{baseUrl}/api/v4/groups?min_access_level=10`, 100 a page), subgroups they belong to
 * through a parent group included.
 *
 * @throws TypeError at creation for an empty client id or secret, or a URL option that is not
 *   an absolute http(s) URL (the message names the option, never a value).
 */
export function gitlabCodeHost(options: GitlabCodeHostOptions): CodeHost {
  requireText(FACTORY, options.clientId, 'clientId');
  requireText(FACTORY, options.clientSecret, 'clientSecret');
  const redirectUri = requireHttpUrl(FACTORY, options.redirectUri, 'redirectUri');
  const base = requireHttpUrl(FACTORY, options.baseUrl ?? GITLAB_URL, 'baseUrl').replace(
    /\/+$/,
    '',
  );
  const scopes = [...(options.scopes ?? DEFAULT_SCOPES)];
  const client = new OAuth2Client(options.clientId, options.clientSecret, redirectUri);
  const groups = new URL(`${base}/api/v4/groups`);
  groups.searchParams.set('min_access_level', MEMBER_ACCESS_LEVEL);
  groups.searchParams.set('per_page', String(GROUPS_PAGE_SIZE));
  const listing: MembershipListing = {
    firstPage: groups,
    pageSize: GROUPS_PAGE_SIZE,
    pathOf: (entry) => pathField(entry, 'full_path'),
  };

  return {
    ...(options.organisationLinks === false ? {} : { organisationLinks: 'gitlab' as const }),
    authorizationUrl({ state, codeVerifier }) {
      return client.createAuthorizationURLWithPKCE(
        `${base}/oauth/authorize`,
        state,
        CodeChallengeMethod.S256,
        codeVerifier,
        scopes,
      );
    },
    async exchangeCode({
      code,
      codeVerifier,
      signal,
      organisations = [],
    }: CodeExchange): Promise<CodeHostUser> {
      let tokens: OAuth2Tokens;
      try {
        tokens = await client.validateAuthorizationCode(`${base}/oauth/token`, code, codeVerifier);
      } catch (error) {
        throw tokenEndpointError(error, readOAuthError);
      }
      const accessToken = (tokens.data as { access_token?: unknown }).access_token;
      if (typeof accessToken !== 'string' || accessToken === '') {
        throw new CodeHostError('failed', 'token endpoint answered without an access token');
      }
      const user = await fetchCodeHostUser(`${base}/api/v4/user`, accessToken, signal, 'username');
      if (organisations.length === 0) return user;
      return {
        ...user,
        organisations: await listedMemberships(listing, organisations, accessToken, signal),
      };
    },
  };
}

/** GitLab refuses an unknown, used or mismatched code with `invalid_grant`. */
const readOAuthError: ReadOAuthError = (error) => ({
  refused: REFUSED_CODE_ERRORS.has(error.code),
  detail: '',
});
