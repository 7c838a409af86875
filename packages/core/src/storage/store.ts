/**
 * Storage interfaces: domain methods named after what the API needs, implemented by the
 * memory, embedded (SQLite) and MySQL stores and proven by the conformance suite in
 * `@covgate/testing/vitest`.
 *
 * All timestamps are `Date` values with whole-second precision (stores may truncate
 * milliseconds; the API never relies on them).
 */

/** Billing plan of an organisation; it selects the rate-limit tier. */
export type Plan = 'free' | 'team' | 'enterprise';

/** An organisation: the unit that owns tokens, sessions and execution records. */
export interface Organisation {
  /** `org_` + lowercase ULID. */
  id: string;
  /** URL-safe unique name used in query parameters and badge paths. */
  slug: string;
  name: string;
  plan: Plan;
  createdAt: Date;
}

/** A user known through the code host (OAuth login). */
export interface User {
  /** `usr_` + lowercase ULID. */
  id: string;
  /** Code-host name, for example `github`. */
  provider: string;
  /** The code host's stable id of the user. */
  externalId: string;
  login: string;
  createdAt: Date;
}

/**
 * A user's role in an organisation: `owner` (members, invites, settings, tokens), `admin`
 * (tokens), `member` (reads).
 */
export type Role = 'owner' | 'admin' | 'member';

/** Every {@link Role}, from the most to the least allowed. */
export const ROLES = ['owner', 'admin', 'member'] as const satisfies readonly Role[];

/** A user's membership of an organisation. */
export interface Membership {
  orgId: string;
  /** A covgate user id (`usr_...`, or whatever id a frontend gave its sessions). */
  userId: string;
  role: Role;
  /** When the user joined. */
  createdAt: Date;
  /**
   * `github-org` when the user joined because they belong to the organisation's linked GitHub
   * organisation (they leave when they no longer do); absent for any other way in.
   */
  source?: MembershipSource;
}

/** How a membership came to be, when it matters later: through a linked GitHub organisation. */
export type MembershipSource = 'github-org';

/** A covgate organisation linked to a GitHub organisation, whose members join as `member`. */
export interface GithubOrgLink {
  orgId: string;
  /** The GitHub organisation's login, in lower case (GitHub compares them without case). */
  githubOrg: string;
  /** The owner who linked it. */
  linkedBy: string;
  linkedAt: Date;
}

/** A member as listed: the membership and the user's code-host login, when covgate knows it. */
export interface MemberListing extends Membership {
  login: string | null;
}

/** An organisation a user belongs to, with the user's role in it. */
export interface UserOrganisation {
  organisation: Organisation;
  role: Role;
}

/**
 * What a change of a membership did: `done`, `unknown` (no such member, nothing changed) or
 * `last-owner` (refused: the organisation would be left without an owner).
 */
export type MemberChange = 'done' | 'unknown' | 'last-owner';

/** Stored lifecycle status of an API token (`rotating` turns into `revoked` at grace end). */
export type TokenStatus = 'active' | 'rotating' | 'revoked';

/** An API token as stored: never the raw value, only its argon2id hash. */
export interface TokenRecord {
  /** The 32-hex UUID embedded in the token. */
  id: string;
  orgId: string;
  name: string;
  scopes: string[];
  agentType: string;
  /** argon2id PHC string of the whole raw token (peppered). */
  hash: string;
  status: TokenStatus;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** Set when rotated: the old token stays valid until this instant. */
  gracePeriodEndsAt: Date | null;
}

/** A server-side session; only the HMAC of its bearer token is kept. */
export interface SessionRecord {
  /** `ses_` + lowercase ULID: the public id used in logout paths and audit lines. */
  id: string;
  /** Hex HMAC-SHA-256 of the raw session token keyed with `SESSION_SECRET`. */
  tokenHash: string;
  userId: string;
  orgId: string;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * A one-time sign-in link (`covgate-admin login-link`): signs `userId` in to `orgId` once,
 * until `expiresAt`. Only the HMAC of its token is kept, like a session's.
 */
export interface SignInLinkRecord {
  /** `lnk_` + lowercase ULID. */
  id: string;
  /** Hex HMAC-SHA-256 of the raw link token keyed with `SESSION_SECRET`. */
  tokenHash: string;
  userId: string;
  orgId: string;
  /** The role the user joins with when not a member of the organisation yet. */
  role: Role;
  createdAt: Date;
  expiresAt: Date;
  /** When the link was used; null while unused. */
  usedAt: Date | null;
}

/**
 * An invite to an organisation: whoever accepts it (once, before `expiresAt`, unless revoked)
 * joins with `role`. Only the HMAC of its token is kept.
 */
export interface InviteRecord {
  /** `inv_` + lowercase ULID. */
  id: string;
  orgId: string;
  /** Hex HMAC-SHA-256 of the raw invite token keyed with `SESSION_SECRET`. */
  tokenHash: string;
  role: Role;
  /** The user who made it. */
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
  /** Who accepted it, when; null while not accepted. */
  acceptedBy: string | null;
  acceptedAt: Date | null;
  /** When it was revoked; null while not revoked. */
  revokedAt: Date | null;
}

/** What {@link InviteStore.acceptInvite} did. */
export type InviteAcceptance =
  /** The user joined: the invite is now accepted by them. */
  | { outcome: 'accepted'; invite: InviteRecord; member: Membership }
  /** The user already belongs to the organisation: nothing changed, the invite is still open. */
  | { outcome: 'already-member'; invite: InviteRecord; member: Membership }
  /**
   * The invite is open but its maker (`createdBy`) is no longer an owner of its organisation
   * (demoted, removed, left): it cannot be accepted, nothing changed.
   */
  | { outcome: 'maker-lost-right'; invite: InviteRecord }
  /** Unknown, accepted, revoked or expired: nothing changed. */
  | { outcome: 'refused' };

/**
 * What {@link InviteStore.revokeInvite} did: `revoked` it, or nothing because it was
 * `already-revoked`, `accepted` (possibly a moment before, by a concurrent acceptance) or
 * `unknown`.
 */
export type InviteRevocation = 'revoked' | 'already-revoked' | 'accepted' | 'unknown';

/** Result of a coverage-gate run. */
export type Outcome = 'pass' | 'warn' | 'fail';

/** A stored execution record. */
export interface ExecutionRecord {
  /** `exe_` + lowercase ULID (monotonic, so id order is insertion order). */
  id: string;
  orgId: string;
  repo: string;
  branch: string;
  outcome: Outcome;
  /** Formatted delta: `+1.25`, `-0.40` or `0.00`. */
  delta: string;
  /** Coverage percentage with two decimals, 0..100. */
  coverage: number;
  /** The commit the run covered: 7-64 lowercase hex characters, or null when not given. */
  commit: string | null;
  createdAt: Date;
  /**
   * The branch the run was compared against (the ingest's `base_branch`). Null only on
   * records stored before covgate kept baselines: whether they had one is unknown.
   */
  baseBranch: string | null;
  /**
   * The record the run was compared with: its id, or null when the base branch had no
   * baseline (the run was recorded as the first one), or when `baseBranch` is null.
   * The four `baseline*` fields are a copy taken at ingest, all set or all null.
   */
  baselineId: string | null;
  /** The baseline's coverage, two decimals. */
  baselineCoverage: number | null;
  /** The baseline's commit (null also when it was posted without one). */
  baselineCommit: string | null;
  /** When the baseline was recorded. */
  baselineCreatedAt: Date | null;
  /**
   * How the baseline was chosen: `base_commit` (the base branch's run at the run's
   * `baseCommit`) or `latest` (the latest `pass`/`warn` run of the base branch). Null when
   * there was no baseline, and on records stored before covgate said (those were `latest`).
   */
  baselineSelection: BaselineSelection | null;
  /** The monorepo part the run covers (`api`, `web`); null for the whole repository. */
  component: string | null;
  /** The pull request's number, when the run was for one. */
  pullRequest: number | null;
  /** The merge base of the run's branch with its base branch (lowercase hex), when sent. */
  baseCommit: string | null;
  /** Covered lines of the patch (lines the change added or changed); null when not sent. */
  patchCovered: number | null;
  /** Coverable lines of the patch; null when not sent, 0 for an empty patch. */
  patchCoverable: number | null;
  /** The patch target the run was judged with (percent); null when no patch was sent. */
  patchTarget: number | null;
  /** Where the patch target came from; null when no patch was sent. */
  patchTargetSource: PatchTargetSource | null;
  /** The rule that gave the outcome; null on records stored before covgate said (`delta`). */
  decidedBy: DecidingRule | null;
  /** How many entries the run's per-file list has; null when none was sent. */
  fileCount: number | null;
}

/** How a run's baseline was chosen (see {@link ExecutionRecord.baselineSelection}). */
export type BaselineSelection = 'base_commit' | 'latest';

/** Where a run's patch target came from: the run itself, the repository's default, or covgate's. */
export type PatchTargetSource = 'run' | 'repository' | 'default';

/** The rule that decided a run's outcome: the delta thresholds or the patch target. */
export type DecidingRule = 'delta' | 'patch';

/** Settings of one repository of an organisation. */
export interface RepositorySettings {
  orgId: string;
  repo: string;
  /** The patch target of runs that send none (percent, 0..100), or null for covgate's default. */
  patchTarget: number | null;
  /** The repository's http(s) URL on its code host (`https://github.com/acme/api`), or null. */
  webUrl: string | null;
  /**
   * Who set `webUrl`: `api` (a `PATCH`, which a run's `repo_url` never replaces, even when it
   * set null) or `ingest` (a run's `repo_url`, taken while none was set); null when never set.
   */
  webUrlSource: WebUrlSource | null;
  updatedAt: Date;
}

/** Who set a repository's web URL (see {@link RepositorySettings.webUrlSource}). */
export type WebUrlSource = 'api' | 'ingest';

/** One repository of an organisation as its per-repository counter knows it. */
export interface RepositorySummary {
  repo: string;
  /** Number of execution records of the repository (the counter, never a scan). */
  total: number;
  /** The newest record of the repository (`createdAt` desc, then `id` desc). */
  latest: ExecutionRecord;
}

/**
 * A repository of an organisation linked to a GitHub repository: covgate sets commit statuses
 * and a pull-request comment there after each run. The store keeps the credential as given
 * (ciphertext made by the caller); it never encrypts, decrypts or shows it.
 */
export interface RepositoryLink {
  orgId: string;
  /** The covgate repository name (as runs are recorded under). */
  repo: string;
  /** The GitHub repository, `owner/name`. */
  githubRepo: string;
  /** The GitHub REST API base, `https://api.github.com` or a GitHub Enterprise `.../api/v3`. */
  apiUrl: string;
  /** The encrypted credential (ciphertext text); never returned by the API. */
  credential: string;
  /** A short, safe hint of the credential to show (its last 4 characters, say). */
  credentialHint: string;
  /** The user who linked it. */
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The default {@link RepositoryLink.apiUrl}: github.com's REST API. */
export const GITHUB_API_URL = 'https://api.github.com';

/** What a delivery sends: the `covgate/project` or `covgate/patch` status, or the comment. */
export type DeliveryKind = 'status_project' | 'status_patch' | 'comment';

/** Where a delivery stands: waiting (or being sent), done, or given up. */
export type DeliveryState = 'pending' | 'sent' | 'failed';

/** A delivery to enqueue with its run: the run's organisation, repository and time are its own. */
export interface NewDelivery {
  /** `dlv_` + lowercase ULID. */
  id: string;
  kind: DeliveryKind;
  /** JSON text: everything needed to send it, never a credential. */
  payload: string;
}

/**
 * One message of the outbox: written in the transaction of its run, sent by the outbox worker
 * (one sender at a time per delivery, through a lease), retried until sent or failed.
 */
export interface DeliveryRecord {
  /** `dlv_` + lowercase ULID. */
  id: string;
  orgId: string;
  repo: string;
  /** The run it reports. */
  executionId: string;
  kind: DeliveryKind;
  /** JSON text as enqueued. */
  payload: string;
  state: DeliveryState;
  /**
   * How many times it was claimed for sending (a claim counts even when the sender died),
   * less the claims given back by {@link OutboxStore.deferDelivery} (rate limits, hand-backs).
   */
  attempts: number;
  /** Not claimed before this instant. */
  nextAttemptAt: Date;
  /** The sender holding it; null when not claimed or done. */
  leaseOwner: string | null;
  /** When the holder's claim lapses and another sender may take it. */
  leaseUntil: Date | null;
  /** Why the last attempt did not succeed (no credential in it), null when none failed. */
  lastError: string | null;
  /** The HTTP status of the last attempt's answer, null for none (network error). */
  lastStatus: number | null;
  createdAt: Date;
  updatedAt: Date;
  /** When it was sent; null until then. */
  sentAt: Date | null;
}

/** How an attempt to send a delivery ended, when not with success. */
export interface DeliveryAttemptOutcome {
  /** When the attempt ended. */
  at: Date;
  /** Why: a short reason for operators and the dashboard, never a credential. */
  error: string;
  /** The HTTP status of the answer, null for a network error or none. */
  status: number | null;
}

/** The outbox's gauges: what operators scrape. */
export interface OutboxStats {
  /** Deliveries not sent yet (claimed ones included). */
  pending: number;
  /** Seconds since the oldest pending delivery was enqueued; 0 when none is pending. */
  oldestPendingAgeSeconds: number;
  /** Deliveries given up. */
  failed: number;
}

/** Position after which a page of executions continues (exclusive). */
export interface ExecutionCursor {
  createdAt: Date;
  id: string;
}

/**
 * Which of a repository's executions a list or count takes; every field given must match.
 */
export interface ExecutionFilter {
  /** Exactly this branch. */
  branch?: string;
  /** Exactly this outcome. */
  outcome?: Outcome;
  /** Exactly this component; null: the runs without a component; absent: any. */
  component?: string | null;
}

/** Query for the newest-first list of one repository's executions. */
export interface ListExecutionsQuery extends ExecutionFilter {
  orgId: string;
  repo: string;
  /** 1..1000 (the API's pages hold at most 100; its history series up to 1 000). */
  limit: number;
  /** Only records strictly older than this position (ordering `createdAt` desc, `id` desc). */
  after?: ExecutionCursor;
}

/**
 * The idempotency key an ingest was sent with, to be stored with its execution. Keys are
 * scoped per organisation: the record's `orgId` and `key` together are unique.
 */
export interface IdempotencyKeyClaim {
  /** The `Idempotency-Key` header as sent: 1-255 visible ASCII characters, case-sensitive. */
  key: string;
  /** Hex SHA-256 of the canonical request; a repeat with another digest is a conflict. */
  requestDigest: string;
  /** When the claim is made: a stored key with `expiresAt` at or before it is dead. */
  createdAt: Date;
  /** When the key stops being remembered (at least 24 h after `createdAt`). */
  expiresAt: Date;
}

/** A live idempotency key and the execution it recorded. */
export interface IdempotentExecution {
  requestDigest: string;
  record: ExecutionRecord;
}

/** What {@link ExecutionStore.insertKeyedExecution} did. */
export type KeyedInsertResult =
  | { inserted: true }
  /** A live key of the organisation existed: nothing was written. */
  | ({ inserted: false } & IdempotentExecution);

/** Thrown by a store when a unique value (organisation slug, token id...) already exists. */
export class StoreConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreConflictError';
  }
}

/**
 * An infrastructure failure (connection lost, deadline passed...) that the store has
 * already logged with its component prefix. The API answers it with `500 internal error`
 * without logging it a second time; store implementations extend it for that.
 */
export class StoreFailureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreFailureError';
  }
}

/**
 * A {@link StoreFailureError} that carries the database driver's error code. Its message
 * names the component, the operation and that code only (`[tokens] createToken failed:
 * ECONNREFUSED`): never a host name, a query, a parameter or a credential, so any layer may
 * show or log it. The SQL stores' errors (`MySqlStoreError`, `SqliteStoreError`) extend it.
 */
export class StoreDriverError extends StoreFailureError {
  /** The driver's or server's error code, such as `ECONNREFUSED` or `SQLITE_BUSY`. */
  readonly code: string;

  constructor(component: string, operation: string, code: string) {
    super(`[${component}] ${operation} failed: ${code}`);
    this.name = 'StoreDriverError';
    this.code = code;
  }
}

/**
 * A store call the store could not take on: its connection pool's wait queue was full, or it
 * did not finish within its deadline. The guard logs one line when such failures start and
 * one when a call succeeds again, not one per call; the API answers `503 {"error":"service
 * unavailable"}` with `Retry-After`, since the same request may pass a moment later.
 */
export class StoreOverloadError extends StoreDriverError {
  constructor(component: string, operation: string, code: string) {
    super(component, operation, code);
    this.name = 'StoreOverloadError';
  }
}

/** Organisations. */
export interface OrganisationStore {
  /** Inserts an organisation; throws {@link StoreConflictError} when the id or slug exists. */
  createOrganisation(org: Organisation): Promise<void>;
  findOrganisationById(id: string): Promise<Organisation | null>;
  findOrganisationBySlug(slug: string): Promise<Organisation | null>;
  /** Changes the plan; returns false when the organisation does not exist. */
  setOrganisationPlan(id: string, plan: Plan): Promise<boolean>;
  /**
   * Applies a plan change that a provider stamped at `eventAt` (whole seconds), atomically and
   * only when no later change has been applied: `applied` when `eventAt` is at or after the
   * last applied change's time (or none was applied yet), `stale` (nothing changed) when it is
   * before it, `unknown` when the organisation does not exist. {@link setOrganisationPlan}
   * neither reads nor moves that time.
   */
  applyPlanChange(id: string, plan: Plan, eventAt: Date): Promise<PlanChangeResult>;
  /**
   * Inserts an organisation as the personal organisation of user `userId` (one per user).
   * Throws {@link StoreConflictError} when the id or slug exists or the user already has one.
   */
  createPersonalOrganisation(org: Organisation, userId: string): Promise<void>;
  /** The personal organisation linked to user `userId`, never looked up by slug. */
  findPersonalOrganisation(userId: string): Promise<Organisation | null>;
}

/** Outcome of {@link OrganisationStore.applyPlanChange}. */
export type PlanChangeResult = 'applied' | 'stale' | 'unknown';

/** Users signed in through the code host. */
export interface UserStore {
  /**
   * Returns the user with this (provider, externalId), creating `candidate` when absent.
   * Safe under concurrent calls: all callers get the same stored user.
   */
  findOrCreateUser(candidate: User): Promise<User>;
  findUserById(id: string): Promise<User | null>;
}

/** API tokens. */
export interface TokenStore {
  /** Inserts a token; throws {@link StoreConflictError} when the id exists. */
  insertToken(token: TokenRecord): Promise<void>;
  findTokenById(id: string): Promise<TokenRecord | null>;
  /** Tokens of one organisation, newest first (`createdAt` desc, then `id` desc). */
  listTokensByOrg(orgId: string): Promise<TokenRecord[]>;
  /** Updates name and/or scopes; returns the updated token, or null when it does not exist. */
  updateToken(id: string, patch: { name?: string; scopes?: string[] }): Promise<TokenRecord | null>;
  /** Sets status `revoked` (and clears nothing else); returns false when the token does not exist. */
  revokeToken(id: string): Promise<boolean>;
  /**
   * Atomically: when the old token is `active`, marks it `rotating` with `gracePeriodEndsAt`
   * and inserts `replacement`; returns false (and changes nothing) when it is not active.
   * Throws {@link StoreConflictError} (leaving the old token active) when the replacement's
   * id exists.
   */
  rotateToken(oldId: string, replacement: TokenRecord, gracePeriodEndsAt: Date): Promise<boolean>;
  /** Records the last successful use. */
  touchToken(id: string, at: Date): Promise<void>;
  /**
   * Compare-and-set of a token's hash, for re-hashing under a new `TOKEN_PEPPER`: replaces
   * `hash` with `newHash` only while the stored hash is still `expectedHash`, and changes
   * nothing else (status, grace end, scopes), so a concurrent revoke or rotation keeps its
   * effect. Returns false (changing nothing) when the token does not exist or its hash
   * differs.
   */
  replaceTokenHash(id: string, expectedHash: string, newHash: string): Promise<boolean>;
}

/** Server-side sessions. */
export interface SessionStore {
  /** Inserts a session; throws {@link StoreConflictError} when the id or token hash exists. */
  insertSession(session: SessionRecord): Promise<void>;
  findSessionByTokenHash(tokenHash: string): Promise<SessionRecord | null>;
  findSessionById(id: string): Promise<SessionRecord | null>;
  /** Returns false when no such session existed. */
  deleteSession(id: string): Promise<boolean>;
  /** Makes the session act for another organisation; false when no such session exists. */
  setSessionOrganisation(id: string, orgId: string): Promise<boolean>;
}

/** Who belongs to which organisation, with which role. */
export interface MembershipStore {
  /**
   * Adds a membership; returns false, changing nothing, when the user already belongs to the
   * organisation (whatever the role).
   */
  addMember(member: Membership): Promise<boolean>;
  findMember(orgId: string, userId: string): Promise<Membership | null>;
  /**
   * The organisation's members, oldest first (`createdAt`, then `userId`), each with the
   * login of the user when a user row of that id exists (else null).
   */
  listMembers(orgId: string): Promise<MemberListing[]>;
  /** The organisations the user belongs to, by slug. */
  listUserOrganisations(userId: string): Promise<UserOrganisation[]>;
  /**
   * Sets a member's role, atomically refusing (`last-owner`, nothing changed) to take the
   * role `owner` from the organisation's only owner: of concurrent demotions of the last two
   * owners, one is refused.
   */
  changeMemberRole(orgId: string, userId: string, role: Role): Promise<MemberChange>;
  /** Removes a member, atomically refusing (`last-owner`) to remove the only owner. */
  removeMember(orgId: string, userId: string): Promise<MemberChange>;
}

/** One-time sign-in links. */
export interface SignInLinkStore {
  /** Inserts a link; throws {@link StoreConflictError} when the id or token hash exists. */
  insertSignInLink(link: SignInLinkRecord): Promise<void>;
  /**
   * Uses the link with this token hash, atomically: when it is unused and `expiresAt` is after
   * `at`, records `usedAt = at` and returns the link as now stored; otherwise (unknown, used,
   * expired) changes nothing and returns null. Of any number of concurrent calls for one link,
   * exactly one gets it.
   */
  useSignInLink(tokenHash: string, at: Date): Promise<SignInLinkRecord | null>;
}

/** Links of organisations to GitHub organisations (at most one each way). */
export interface GithubOrgLinkStore {
  /**
   * Links the organisation to `link.githubOrg`, replacing its previous link; `taken` (nothing
   * changed) when another organisation is linked to that GitHub organisation.
   */
  linkGithubOrg(link: GithubOrgLink): Promise<'done' | 'taken'>;
  findGithubOrgLink(orgId: string): Promise<GithubOrgLink | null>;
  /** Every link, by GitHub organisation (a GitHub sign-in checks each). */
  listGithubOrgLinks(): Promise<GithubOrgLink[]>;
  /** Removes the organisation's link; false when it had none. Members stay. */
  unlinkGithubOrg(orgId: string): Promise<boolean>;
}

/** Invites to organisations. */
export interface InviteStore {
  /** Inserts an invite; throws {@link StoreConflictError} when the id or token hash exists. */
  insertInvite(invite: InviteRecord): Promise<void>;
  findInviteById(id: string): Promise<InviteRecord | null>;
  findInviteByTokenHash(tokenHash: string): Promise<InviteRecord | null>;
  /** The organisation's invites, newest first (`createdAt` desc, then `id` desc). */
  listInvites(orgId: string): Promise<InviteRecord[]>;
  /**
   * Revokes the invite at `at` when it is neither accepted nor revoked, atomically with
   * {@link InviteStore.acceptInvite}: of a revocation and an acceptance racing, exactly one
   * wins, and a lost race answers `accepted`.
   */
  revokeInvite(id: string, at: Date): Promise<InviteRevocation>;
  /**
   * Accepts the invite with this token hash for `userId` at `at`, atomically: when it is open
   * (not accepted, not revoked, `expiresAt` after `at`), its maker is still an owner of its
   * organisation (read in the same step, so a demotion or removal that commits first wins)
   * and the user does not belong to the organisation, adds the membership with the invite's
   * role (joining at `at`) and records the acceptance. Of any number of concurrent calls for
   * one invite, at most one accepts it.
   */
  acceptInvite(tokenHash: string, userId: string, at: Date): Promise<InviteAcceptance>;
}

/** Execution records with an O(1) per-repository total. */
export interface ExecutionStore {
  /**
   * Inserts the record and, in the same transaction, increments the per-(org, repo) counter
   * and moves its latest-record pointer when the record is newer than the current one, and
   * enqueues `deliveries` (state `pending`, due at the record's `createdAt`); throws
   * {@link StoreConflictError} (and writes nothing) when the id exists.
   */
  insertExecution(
    record: ExecutionRecord,
    files?: Uint8Array | null,
    deliveries?: readonly NewDelivery[],
  ): Promise<void>;
  /** The organisation's record with this id, or null (another organisation's is null too). */
  findExecution(orgId: string, id: string): Promise<ExecutionRecord | null>;
  /**
   * The per-file list stored with the organisation's record `id`, as the bytes it was given
   * ({@link insertExecution}'s `files`), or null when the record has none or is unknown.
   */
  findExecutionFiles(orgId: string, id: string): Promise<Uint8Array | null>;
  /** Newest first: `createdAt` desc, then `id` desc; at most `limit` records. */
  listExecutions(query: ListExecutionsQuery): Promise<ExecutionRecord[]>;
  /**
   * How many of the repository's executions match `filter`: without one (or an empty one) the
   * per-repository counter (never a COUNT(*) scan); with one, a count over an index of the
   * repository's records. 0 for an unknown repo.
   */
  countExecutions(orgId: string, repo: string, filter?: ExecutionFilter): Promise<number>;
  /** The oldest record of the repository that matches `filter` (`createdAt` asc, `id` asc). */
  findOldestExecution(
    orgId: string,
    repo: string,
    filter: ExecutionFilter,
  ): Promise<ExecutionRecord | null>;
  /** The distinct non-null components of the repository's records, in code-unit order. */
  listComponents(orgId: string, repo: string): Promise<string[]>;
  /**
   * The organisation's repositories from the per-repository counters (O(repositories), never
   * a scan of executions), most recently active first: latest `createdAt` desc, then latest
   * `id` desc.
   */
  listRepositories(orgId: string): Promise<RepositorySummary[]>;
  /**
   * Latest `pass` or `warn` record of the repo's `component` (null or absent: records without
   * a component) on `branch`: the baseline of the next run.
   */
  findBaseline(
    orgId: string,
    repo: string,
    branch: string,
    component?: string | null,
  ): Promise<ExecutionRecord | null>;
  /**
   * Latest record of any outcome of the repo's `component` on `branch` whose `commit` is
   * exactly `commit`: the baseline of a run that names its merge base.
   */
  findBaselineAtCommit(
    orgId: string,
    repo: string,
    branch: string,
    commit: string,
    component?: string | null,
  ): Promise<ExecutionRecord | null>;
  /** Latest record of any outcome of the repo's `component` on `branch`: what the badge shows. */
  findLatestExecution(
    orgId: string,
    repo: string,
    branch: string,
    component?: string | null,
  ): Promise<ExecutionRecord | null>;
  /**
   * Like {@link insertExecution}, and in the same transaction stores `claim` under the unique
   * (`record.orgId`, `claim.key`). When a live key (`expiresAt` after `claim.createdAt`)
   * already exists, writes nothing and returns it with its execution; a dead one is replaced.
   * Of any number of concurrent calls with one key, exactly one inserts and every other one
   * returns that one's execution.
   */
  insertKeyedExecution(
    record: ExecutionRecord,
    claim: IdempotencyKeyClaim,
    files?: Uint8Array | null,
    deliveries?: readonly NewDelivery[],
  ): Promise<KeyedInsertResult>;
  /** The organisation's key with its execution when it is live at `now`, else null. */
  findIdempotentExecution(
    orgId: string,
    key: string,
    now: Date,
  ): Promise<IdempotentExecution | null>;
  /**
   * Deletes at most `limit` keys whose `expiresAt` is at or before `now` (their executions
   * stay) and returns how many it deleted.
   */
  deleteExpiredIdempotencyKeys(now: Date, limit: number): Promise<number>;
}

/** Per-repository settings. */
export interface RepositorySettingsStore {
  /** The repository's settings, or null when none were ever saved. */
  findRepositorySettings(orgId: string, repo: string): Promise<RepositorySettings | null>;
  /** Saves the repository's settings, replacing earlier ones. */
  saveRepositorySettings(settings: RepositorySettings): Promise<void>;
  /**
   * Sets the repository's `webUrl` to `webUrl` with source `ingest` when its `webUrlSource` is
   * null (creating the settings, with no patch target, when there are none); changes nothing
   * otherwise. Returns whether it set it. Of concurrent calls, the first write wins.
   */
  claimRepositoryWebUrl(orgId: string, repo: string, webUrl: string, at: Date): Promise<boolean>;
}

/** Links of repositories to GitHub repositories (one per repository). */
export interface RepositoryLinkStore {
  /** Saves the repository's link, replacing the one it had. */
  putRepositoryLink(link: RepositoryLink): Promise<void>;
  findRepositoryLink(orgId: string, repo: string): Promise<RepositoryLink | null>;
  /** Removes the repository's link; false when it had none. Its deliveries stay. */
  deleteRepositoryLink(orgId: string, repo: string): Promise<boolean>;
}

/**
 * The outbox of deliveries to the code host. Deliveries are enqueued by
 * {@link ExecutionStore.insertExecution} with their run; senders claim them with a lease and
 * report how each attempt ended. A report counts only while the reporting sender holds the
 * delivery (`owner` is its lease owner and it is `pending`); otherwise it changes nothing and
 * answers false.
 */
export interface OutboxStore {
  /**
   * Claims, atomically across processes, up to `limit` pending deliveries due at `now` (their
   * `nextAttemptAt` at or before it) whose lease is absent or lapsed: sets their lease to
   * `owner` until `now + leaseMs`, counts an attempt, and returns them as now stored, oldest
   * due first. Of concurrent claimers, each delivery goes to one.
   */
  claimDeliveries(
    owner: string,
    now: Date,
    leaseMs: number,
    limit: number,
  ): Promise<DeliveryRecord[]>;
  /** Marks the delivery `sent` at `at` and drops its lease. */
  markDeliverySent(id: string, owner: string, at: Date): Promise<boolean>;
  /**
   * Puts the delivery back as `pending`, due at `nextAttemptAt`, without a lease, keeping the
   * outcome as `lastError` and `lastStatus`.
   */
  retryDelivery(
    id: string,
    owner: string,
    outcome: DeliveryAttemptOutcome & { nextAttemptAt: Date },
  ): Promise<boolean>;
  /**
   * Puts the delivery back like {@link OutboxStore.retryDelivery} and gives back the attempt
   * its claim counted: for a claim that made no attempt the code host could refuse (a rate
   * limit's wait, a batch handed back unsent), so `attempts` counts real attempts only.
   */
  deferDelivery(
    id: string,
    owner: string,
    outcome: DeliveryAttemptOutcome & { nextAttemptAt: Date },
  ): Promise<boolean>;
  /**
   * Hands back every delivery `owner` holds (pending with its lease): drops the lease, gives
   * back the attempt its claim counted (never below 0) and sets `updatedAt` to `at`, so they
   * are due again at once. For a sender that lost track of its claims in a store failure;
   * answers how many it handed back.
   */
  releaseDeliveries(owner: string, at: Date): Promise<number>;
  /** Gives the delivery up: `failed`, without a lease, with the outcome kept. */
  failDelivery(id: string, owner: string, outcome: DeliveryAttemptOutcome): Promise<boolean>;
  /** The outbox's gauges at `now`. */
  outboxStats(now: Date): Promise<OutboxStats>;
  /** The repository's latest failed deliveries, newest first (`updatedAt` desc, `id` desc). */
  listDeliveryFailures(orgId: string, repo: string, limit: number): Promise<DeliveryRecord[]>;
  /** The deliveries of one run, oldest first (`id`): for tests, support and the run page. */
  listRunDeliveries(orgId: string, executionId: string): Promise<DeliveryRecord[]>;
}

/** Idempotency claims of inbound webhook events. */
export interface WebhookEventStore {
  /**
   * Claims (provider, eventId) through a unique key. Exactly one of any number of
   * concurrent calls for the same pair returns true.
   */
  claimWebhookEvent(provider: string, eventId: string, at: Date): Promise<boolean>;
  /** Removes a claim so a retry of a failed event can be processed. */
  releaseWebhookEvent(provider: string, eventId: string): Promise<void>;
}

/** Everything the API needs from storage. */
export interface Store
  extends OrganisationStore,
    UserStore,
    TokenStore,
    SessionStore,
    MembershipStore,
    InviteStore,
    GithubOrgLinkStore,
    SignInLinkStore,
    ExecutionStore,
    RepositorySettingsStore,
    RepositoryLinkStore,
    OutboxStore,
    WebhookEventStore {
  /**
   * Resolves when the store answers a trivial query within its deadline, else rejects;
   * used by the readiness check. Stores without it are always ready.
   */
  ping?(): Promise<void>;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
}
