import type { Clock } from '../time/timestamp.js';
import type { CodeHost, CodeHostUser } from './code-host.js';
import { loginStateKey } from './login-state.js';
import { createMemoryUsedStateRegistry, type UsedStateRegistry } from './used-states.js';

/** What {@link OAuthOptions.resolveIdentity} is given: the code host's name and its account. */
export interface ResolveIdentityInput {
  /** The key of the code host in `codeHosts`, e.g. `github`. */
  codeHost: string;
  user: CodeHostUser;
}

/** The covgate user and organisation a code-host account signs in as. */
export interface ResolvedIdentity {
  userId: string;
  /** Must name an existing organisation. */
  orgId: string;
}

/** The `oauth` option of `createApi`: login through one or more code hosts. */
export interface OAuthOptions {
  /**
   * Code hosts by route name: `{ github: githubCodeHost({...}) }` serves `/auth/github` and
   * `/auth/github/callback`. Names are 1-64 characters of `[a-z0-9-]`.
   */
  codeHosts: Readonly<Record<string, CodeHost>>;
  /** Where the browser is sent once signed in (absolute http(s) URL). */
  dashboardUrl: string;
  /**
   * Maps a code-host account to a covgate user and organisation (e.g.
   * {@link createPersonalOrganisationResolver}). A throw answers `500` and is logged `[oauth]`.
   */
  resolveIdentity: (input: ResolveIdentityInput) => Promise<ResolvedIdentity>;
  /** Time budget of the code-host exchange (token + user requests) in ms; default 10 000. */
  timeoutMs?: number;
  /** Where used states are remembered; this process's memory by default. */
  usedStates?: UsedStateRegistry;
}

/** {@link OAuthOptions} checked and completed at `createApi` time. */
export interface OAuthSettings {
  codeHosts: ReadonlyMap<string, CodeHost>;
  dashboardUrl: string;
  resolveIdentity: OAuthOptions['resolveIdentity'];
  timeoutMs: number;
  usedStates: UsedStateRegistry;
  /** Seals state cookies (derived from `SESSION_SECRET`). */
  stateKey: Buffer;
  /** Also opens state cookies during a rotation (derived from `SESSION_SECRET_PREVIOUS`). */
  previousStateKey: Buffer | undefined;
}

const CODE_HOST_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** Paths under `/auth` that covgate serves itself: no code host may take their name. */
const RESERVED_AUTH_PATHS = new Set(['link', 'invite']);
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 120_000;

/**
 * Checks the `oauth` option once, at start-up.
 *
 * @throws TypeError naming the offending setting (never a value).
 */
export function resolveOAuthOptions(
  options: OAuthOptions,
  secrets: { sessionSecret: string; previousSessionSecret?: string | undefined },
  clock: Clock,
): OAuthSettings {
  const { sessionSecret, previousSessionSecret } = secrets;
  const codeHosts = new Map(Object.entries(options.codeHosts ?? {}));
  if (codeHosts.size === 0)
    throw new TypeError('oauth.codeHosts: at least one code host is required');
  for (const name of codeHosts.keys()) {
    if (!CODE_HOST_NAME.test(name)) {
      throw new TypeError(`oauth.codeHosts: "${name}" is not a route name ([a-z0-9-], at most 64)`);
    }
    if (RESERVED_AUTH_PATHS.has(name)) {
      throw new TypeError(
        `oauth.codeHosts: "${name}" is reserved (/auth/${name} is covgate's own)`,
      );
    }
  }
  refuseSharedOrganisationLinks(codeHosts);
  if (!isHttpUrl(options.dashboardUrl)) {
    throw new TypeError('oauth.dashboardUrl must be an absolute http(s) URL');
  }
  if (typeof options.resolveIdentity !== 'function') {
    throw new TypeError('oauth.resolveIdentity must be a function');
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new TypeError(`oauth.timeoutMs must be an integer in 1..${MAX_TIMEOUT_MS}`);
  }
  return {
    codeHosts,
    dashboardUrl: options.dashboardUrl,
    resolveIdentity: options.resolveIdentity,
    timeoutMs,
    usedStates:
      options.usedStates ?? createMemoryUsedStateRegistry({ now: () => clock.now().getTime() }),
    stateKey: loginStateKey(sessionSecret),
    previousStateKey: previousSessionSecret ? loginStateKey(previousSessionSecret) : undefined,
  };
}

/**
 * A link names an organisation on a host, not an instance: were two code hosts to synchronise
 * one host's links, an organisation of the same name on the other instance would grant its
 * members the covgate organisation.
 */
function refuseSharedOrganisationLinks(codeHosts: ReadonlyMap<string, CodeHost>): void {
  const seen = new Map<string, string>();
  for (const [name, codeHost] of codeHosts) {
    const host = codeHost.organisationLinks;
    if (host === undefined) continue;
    const other = seen.get(host);
    if (other !== undefined) {
      throw new TypeError(
        `oauth.codeHosts: "${other}" and "${name}" both synchronise ${host} organisation links; turn organisationLinks off on one`,
      );
    }
    seen.set(host, name);
  }
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}
