import { CodeChallengeMethod, OAuth2Client, type OAuth2Tokens } from 'arctic';
import { type CodeExchange, type CodeHost, CodeHostError, type CodeHostUser } from './code-host.js';
import { requireHttpUrl, requireText } from './code-host-options.js';
import { listedMemberships, type MembershipListing, pathField } from './listed-memberships.js';
import {
  fetchCodeHostUser,
  type ReadOAuthError,
  tokenEndpointError,
} from './oauth2-host-answers.js';

/** Options of {@link giteaCodeHost}. */
export interface GiteaCodeHostOptions {
  /** The OAuth2 application's client id (Gitea: *Settings* -> *Applications*, confidential). */
  clientId: string;
  /** The application's client secret; sent only to the token endpoint. */
  clientSecret: string;
  /** The redirect URI registered with the application, e.g. `https://api.example.com/auth/gitea/callback`. */
  redirectUri: string;
  /** The Gitea or Forgejo instance's address, e.g. `https://git.example.com` or `https://codeberg.org`. */
  baseUrl: string;
  /**
   * Requested scopes; default `read:user` (the account's id and login) and
   * `read:organization` (its organisations, for those linked to covgate organisations).
   */
  scopes?: readonly string[];
  /**
   * Whether this instance's sign-ins synchronise the organisations linked to Gitea
   * organisations; default true. Turn it off on all but one Gitea or Forgejo code host of a
   * server: a link names an organisation, not an instance.
   */
  organisationLinks?: boolean;
}

const FACTORY = 'giteaCodeHost';
const DEFAULT_SCOPES = ['read:user', 'read:organization'];
/** Gitea's default ceiling of a page (`MAX_RESPONSE_ITEMS`); a lower one means more pages. */
const ORGS_PAGE_SIZE = 50;
/**
 * Gitea answers every refusal of the token request `400` with `unauthorized_client`, whether
 * the code is unknown or used, the PKCE verifier does not match, or the client secret is wrong;
 * only its fixed descriptions tell a refused code from a misconfiguration.
 */
const REFUSED_CODE_DESCRIPTIONS = new Set([
  'client is not authorized',
  'failed PKCE code challenge',
]);

/**
 * The Gitea and Forgejo code host for browser login, on `arctic`'s generic OAuth 2.0 client:
 * authorization code with a PKCE S256 challenge at `{baseUrl}/login/oauth/authorize` and
 * `{baseUrl}/login/oauth/access_token`, the account read from `{baseUrl}/api/v1/user`. With
 * organisations linked to covgate organisations, the user's membership of each is read from
 * their organisations (`{baseUrl}/api/v1/user/orgs`, 50 a page: Gitea's default ceiling).
 *
 * @throws TypeError at creation for an empty client id or secret, or a URL option that is not
 *   an absolute http(s) URL (the message names the option, never a value).
 */
export function giteaCodeHost(options: GiteaCodeHostOptions): CodeHost {
  requireText(FACTORY, options.clientId, 'clientId');
  requireText(FACTORY, options.clientSecret, 'clientSecret');
  const redirectUri = requireHttpUrl(FACTORY, options.redirectUri, 'redirectUri');
  const base = requireHttpUrl(FACTORY, options.baseUrl, 'baseUrl').replace(/\/+$/, '');
  const scopes = [...(options.scopes ?? DEFAULT_SCOPES)];
  const client = new OAuth2Client(options.clientId, options.clientSecret, redirectUri);
  const orgs = new URL(`${base}/api/v1/user/orgs`);
  orgs.searchParams.set('limit', String(ORGS_PAGE_SIZE));
  const listing: MembershipListing = {
    firstPage: orgs,
    pageSize: ORGS_PAGE_SIZE,
    pathOf: (entry) => pathField(entry, 'name') ?? pathField(entry, 'username'),
  };

  return {
    ...(options.organisationLinks === false ? {} : { organisationLinks: 'gitea' as const }),
    authorizationUrl({ state, codeVerifier }) {
      return client.createAuthorizationURLWithPKCE(
        `${base}/login/oauth/authorize`,
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
        tokens = await client.validateAuthorizationCode(
          `${base}/login/oauth/access_token`,
          code,
          codeVerifier,
        );
      } catch (error) {
        throw tokenEndpointError(error, readOAuthError);
      }
      const accessToken = (tokens.data as { access_token?: unknown }).access_token;
      if (typeof accessToken !== 'string' || accessToken === '') {
        throw new CodeHostError('failed', 'token endpoint answered without an access token');
      }
      const user = await fetchCodeHostUser(`${base}/api/v1/user`, accessToken, signal, 'login');
      if (organisations.length === 0) return user;
      return {
        ...user,
        organisations: await listedMemberships(listing, organisations, accessToken, signal),
      };
    },
  };
}

/** Gitea's refusals, told apart by its fixed descriptions, which may therefore be logged. */
const readOAuthError: ReadOAuthError = (error) => {
  const known = REFUSED_CODE_DESCRIPTIONS.has(error.description ?? '');
  return {
    refused: error.code === 'invalid_grant' || (error.code === 'unauthorized_client' && known),
    detail: known ? ` (${error.description})` : '',
  };
};
