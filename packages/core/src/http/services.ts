import type { Logger } from 'pino';
import type { AuditLogger } from '../audit/audit-sink.js';
import type { IdTokenVerifier } from '../ci-identity/id-token-verifier.js';
import type { CodeHostAddressPolicy, HostResolver } from '../code-hosts/code-host-address.js';
import type { ExecutionJsonMemo } from '../executions/execution-json-memo.js';
import type { Identity } from '../identity/identity.js';
import type { SourceReader } from '../source-files/source-reader.js';
import type { Plan, Store } from '../storage/store.js';
import type { IdGenerator } from '../time/ids.js';
import type { Clock } from '../time/timestamp.js';
import type { TokenHasher } from '../tokens/token-hash.js';
import type { VerificationGate } from '../tokens/verification-gate.js';
import type { VerificationPace } from '../tokens/verification-pace.js';
import type { VerificationThrottle } from '../tokens/verification-throttle.js';
import type { VerifiedTokenCache } from '../tokens/verified-token-cache.js';
import type { TokenLoginState } from './auth/token-login-state.js';
import type { ExtraHeaders } from './extra-headers.js';
import type { InflationBudget } from './inflation-budget.js';
import type { RequestRateLimiter } from './rate-limit.js';
import type { Reply } from './reply.js';

/** What the verified-token cache keeps: the identity and until when it may be reused. */
export interface CachedTokenIdentity {
  identity: Extract<Identity, { kind: 'token' }>;
  /** Plan of the organisation when the token was verified (selects the rate limit). */
  plan: Plan;
  /** End of the grace period of a rotating token; null while active. */
  validUntil: Date | null;
}

/** Settings resolved once at `createApi` time. */
export interface ApiSettings {
  serviceToken: string | undefined;
  /** `SERVICE_TOKEN_PREVIOUS`: also accepted during a rotation; never empty. */
  previousServiceToken: string | undefined;
  sessionSecret: string;
  /** `SESSION_SECRET_PREVIOUS`: sessions stored under it are still found; never empty. */
  previousSessionSecret: string | undefined;
  sessionLifetimeSeconds: number;
  allowedOrigins: ReadonlySet<string>;
  /** Cookies carry `Secure` and the `__Host-` prefix. */
  secureCookies: boolean;
  /** Cookie name of the session: `__Host-covgate_session` when secure. */
  sessionCookieName: string;
  /** Where the API is mounted (`/coverage`), `''` at the root: requests outside it are 404. */
  basePath: string;
  /** `Path` of the OAuth state cookie: the mount path followed by `/auth`. */
  oauthCookiePath: string;
  /** Where a browser goes once signed in by a sign-in link or after an invite. */
  dashboardUrl: string;
  /** `publicUrl` without trailing slashes; undefined: the request's origin and base path. */
  publicUrl: string | undefined;
  /** Bytes an ingest may have on the wire (`ingestBodyBytes`). */
  ingestBodyBytes: number;
}

/** The instance-wide collaborators every route handler can use. */
export interface ApiServices {
  settings: ApiSettings;
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  audit: AuditLogger;
  hasher: TokenHasher;
  tokenCache: VerifiedTokenCache<CachedTokenIdentity>;
  throttle: VerificationThrottle;
  /** Cap on concurrent argon2 verifications, with its short queue. */
  verificationGate: VerificationGate;
  /** The time of a verification, imitated for unknown token ids. */
  verificationPace: VerificationPace;
  /** Token verifications in progress and the dummy hash of unknown token ids. */
  tokenLogins: TokenLoginState;
  rateLimiter: RequestRateLimiter;
  /** The memory the gzip bodies inflating at once share. */
  inflationBudget: InflationBudget;
  /** Which addresses a repository link's `api_url` may reach, and how names resolve. */
  codeHosts: { policy: CodeHostAddressPolicy; resolve: HostResolver };
  /** Verifies CI ID tokens presented for ingest; absent: none are accepted. */
  ciTokens: IdTokenVerifier | undefined;
  /** The JSON text of execution records listed recently. */
  executionJson: ExecutionJsonMemo;
  /** Reads a run's files from the linked code host, cached and limited per organisation. */
  sourceFiles: SourceReader;
  randomBytes: (size: number) => Uint8Array;
  /** Dependencies besides the store that readiness waits for (Redis...). */
  readinessChecks: readonly ReadinessCheck[];
  /** The outbox worker, told when an ingest enqueued deliveries; absent: none runs here. */
  outbox: OutboxNudge | undefined;
}

/** What the API tells the outbox worker: deliveries are waiting. */
export interface OutboxNudge {
  nudge(): void;
}

/** Resolves when a dependency answers, rejects otherwise. */
export type ReadinessCheck = () => Promise<void>;

/** One request as route handlers see it. */
export interface RequestScope {
  readonly request: Request;
  /**
   * The request URL without the API's base path, parsed on first use (most requests only
   * need {@link routePath}).
   */
  readonly url: URL;
  /** The query parameters of the request URL (without parsing the rest of it). */
  readonly query: URLSearchParams;
  /** The path of the request URL, base path included. */
  readonly pathname: string;
  /**
   * The path the route table sees: {@link pathname} without the API's base path, or a path
   * no route matches when the request is outside it.
   */
  readonly routePath: string;
  params: Record<string, string>;
  readonly requestId: string;
  /** The peer address, or `unknown` for logs and audit lines when the adapter gave none. */
  readonly remoteAddress: string;
  /** Whether the adapter supplied the peer address (per-address throttling needs one). */
  readonly remoteAddressKnown: boolean;
  readonly services: ApiServices;
  /** Headers every response of this request gets (rate-limit headers, cleared cookies...). */
  readonly responseHeaders: ExtraHeaders;
}

/** A route handler. */
export type RouteHandler = (scope: RequestScope) => Promise<Reply>;
