import { CodeChallengeMethod, OAuth2Client, type OAuth2Tokens } from 'arctic';
import { type CodeExchange, type CodeHost, CodeHostError, type CodeHostUser } from './code-host.js';
import { requireHttpUrl, requireText } from './code-host-options.js';
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
  /** Requested scopes; default `read_user` (the account's id and username). */
  scopes?: readonly string[];
}

const FACTORY = 'gitlabCodeHost';
const GITLAB_URL = 'https://gitlab.com';
const DEFAULT_SCOPES = ['read_user'];
/** OAuth error codes meaning "this code cannot be used", as opposed to a misconfiguration. */
const REFUSED_CODE_ERRORS = new Set(['invalid_grant']);

/**
 * The GitLab code host (gitlab.com or self-managed) for browser login, on `arctic`'s generic
 * OAuth 2.0 client: authorization code with a PKCE S256 challenge at `{baseUrl}/oauth/authorize`
 * and `{baseUrl}/oauth/token`, the account read from `{baseUrl}/api/v4/user`. GitLab groups
 * are not checked at sign-in (no organisation membership yet).
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

  return {
    authorizationUrl({ state, codeVerifier }) {
      return client.createAuthorizationURLWithPKCE(
        `${base}/oauth/authorize`,
        state,
        CodeChallengeMethod.S256,
        codeVerifier,
        scopes,
      );
    },
    async exchangeCode({ code, codeVerifier, signal }: CodeExchange): Promise<CodeHostUser> {
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
      return fetchCodeHostUser(`${base}/api/v4/user`, accessToken, signal, 'username');
    },
  };
}

/** GitLab refuses an unknown, used or mismatched code with `invalid_grant`. */
const readOAuthError: ReadOAuthError = (error) => ({
  refused: REFUSED_CODE_ERRORS.has(error.code),
  detail: '',
});
