import type { CodeHostKind } from '../storage/records/repository-links.js';

/** The code-host account that signed in, as the code host identifies it. */
export interface CodeHostUser {
  /** The code host's stable, never reused id of the account (GitHub's numeric id as text). */
  id: string;
  /** The current login name; it can change and be reused, so never key anything on it. */
  login: string;
  /**
   * For each organisation of {@link CodeExchange.organisations}, whether the account belongs
   * to it, checked with the sign-in's token. Missing entries count as `unknown`.
   */
  organisations?: ReadonlyMap<string, OrganisationMembership>;
}

/**
 * An account's membership of a code-host organisation: `member` (an active member),
 * `not-member` (not a member, or an invitation not accepted yet), or `unknown` (the code host
 * did not say: a refusal, an outage).
 */
export type OrganisationMembership = 'member' | 'not-member' | 'unknown';

/** What a code host needs to complete a login. */
export interface CodeExchange {
  /** The `code` query value of the callback. */
  code: string;
  /** The PKCE verifier whose S256 challenge went into the authorize URL. */
  codeVerifier: string;
  /** Aborted when the login's time budget is spent; pass it to every request you make. */
  signal: AbortSignal;
  /**
   * Organisation names or GitLab group paths (lower case) whose membership to check with the
   * sign-in's token, for code hosts with {@link CodeHost.organisationLinks}; answered in
   * {@link CodeHostUser.organisations}.
   */
  organisations?: readonly string[];
}

/**
 * A code host (OAuth 2.0 authorization server plus user API) that people sign in with.
 * {@link githubCodeHost} is the built-in one; implement this to add another.
 */
export interface CodeHost {
  /** The authorize URL to redirect the browser to, carrying the state and the S256 challenge. */
  authorizationUrl(input: { state: string; codeVerifier: string }): URL;
  /**
   * Exchanges the code (with the PKCE verifier) for an access token and reads the account.
   * Failures must be thrown as {@link CodeHostError}; anything else counts as `failed`.
   */
  exchangeCode(input: CodeExchange): Promise<CodeHostUser>;
  /**
   * The host whose organisation links this code host's sign-ins synchronise (`exchangeCode`
   * then checks {@link CodeExchange.organisations}): covgate organisations linked to
   * organisations on it gain and lose members as it says. None when absent. At most one code
   * host of a server may name each host: a link names an organisation, not an instance.
   */
  readonly organisationLinks?: CodeHostKind;
}

/**
 * Why a code host could not complete a login:
 * - `invalid-code`: the code host refused the code (expired, used, or PKCE mismatch);
 * - `failed`: an unexpected answer (non-2xx, error JSON, malformed user);
 * - `unavailable`: the code host could not be reached;
 * - `timeout`: no answer within the time budget.
 */
export type CodeHostFailure = 'invalid-code' | 'failed' | 'unavailable' | 'timeout';

/**
 * A failed exchange with the code host. `detail` goes to the `[oauth]` log line: it must name
 * what failed (an endpoint, a status, an OAuth error code) and never hold a secret, a token
 * or the code host's raw response body.
 */
export class CodeHostError extends Error {
  constructor(
    readonly failure: CodeHostFailure,
    readonly detail: string,
  ) {
    super(`${failure}: ${detail}`);
    this.name = 'CodeHostError';
  }
}
