/**
 * Storage interfaces: domain methods named after what the API needs, implemented by the
 * memory, embedded (SQLite) and MySQL stores and proven by the conformance suite in
 * `@covgate/testing/vitest`. Each entity's records and store port live in `records/`; this
 * module joins the ports into {@link Store} and holds the errors every store throws.
 *
 * All timestamps are `Date` values with whole-second precision (stores may truncate
 * milliseconds; the API never relies on them).
 */

import type { CommitReportStore } from './records/commit-reports.js';
import type { ExecutionStore } from './records/executions.js';
import type { InviteStore } from './records/invites.js';
import type { MembershipStore } from './records/memberships.js';
import type { OrganisationLinkStore } from './records/organisation-links.js';
import type { OrganisationSettingsStore } from './records/organisation-settings.js';
import type { OrganisationStore } from './records/organisations.js';
import type { OutboxStore } from './records/outbox.js';
import type { RepositoryLinkStore } from './records/repository-links.js';
import type { RepositorySettingsStore } from './records/repository-settings.js';
import type { RetentionStore } from './records/retention.js';
import type { SessionStore } from './records/sessions.js';
import type { SignInLinkStore } from './records/sign-in-links.js';
import type { TokenStore } from './records/tokens.js';
import type { UserStore } from './records/users.js';
import type { WebhookEventStore } from './records/webhook-events.js';

export type { CarriedPart, Carryforward } from '../executions/carryforward.js';
export type { ExpectedParts, ExpectedSource, PartsRules, PartsState } from '../executions/parts.js';
export type {
  CommitReportKey,
  CommitReportStore,
  CommitReportWrite,
  PartUpload,
} from './records/commit-reports.js';
export type {
  BaselineSelection,
  CommentSection,
  DecidingRule,
  ExecutionCursor,
  ExecutionFilter,
  ExecutionPoint,
  ExecutionRecord,
  ExecutionStore,
  FeedbackItemPlan,
  FeedbackPlan,
  FeedbackSkipReason,
  IdempotencyKeyClaim,
  IdempotentExecution,
  KeyedInsertResult,
  ListExecutionsQuery,
  Outcome,
  PatchTargetSource,
  PolicyFileName,
  ProjectTargetSource,
  RepositorySummary,
} from './records/executions.js';
export type {
  InviteAcceptance,
  InviteRecord,
  InviteRevocation,
  InviteStore,
} from './records/invites.js';
export {
  MEMBERSHIP_SOURCES,
  type MemberChange,
  type MemberListing,
  type Membership,
  type MembershipSource,
  type MembershipStore,
  ROLES,
  type Role,
  type UserOrganisation,
} from './records/memberships.js';
export type { OrganisationLink, OrganisationLinkStore } from './records/organisation-links.js';
export type {
  OrganisationSettings,
  OrganisationSettingsStore,
} from './records/organisation-settings.js';
export type {
  Organisation,
  OrganisationStore,
  Plan,
  PlanChangeResult,
} from './records/organisations.js';
export type {
  DeliveryAttemptOutcome,
  DeliveryKind,
  DeliveryRecord,
  DeliverySentResult,
  DeliveryState,
  NewDelivery,
  OutboxStats,
  OutboxStore,
} from './records/outbox.js';
export {
  CODE_HOST_KINDS,
  type CodeHostKind,
  GITHUB_API_URL,
  type RepositoryLink,
  type RepositoryLinkStore,
} from './records/repository-links.js';
export {
  CI_PROVIDERS,
  type CiProvider,
  type CiTrust,
  type RepositorySettings,
  type RepositorySettingsStore,
  type WebUrlSource,
} from './records/repository-settings.js';
export {
  type DetailSize,
  RETENTION_BATCH_MAX,
  type RepositoryKey,
  type RetentionRun,
  type RetentionStore,
} from './records/retention.js';
export type { SessionRecord, SessionStore } from './records/sessions.js';
export type { SignInLinkRecord, SignInLinkStore } from './records/sign-in-links.js';
export type { TokenRecord, TokenStatus, TokenStore } from './records/tokens.js';
export type { User, UserStore } from './records/users.js';
export type { WebhookEventStore } from './records/webhook-events.js';

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

/** Everything the API needs from storage. */
export interface Store
  extends OrganisationStore,
    OrganisationSettingsStore,
    UserStore,
    TokenStore,
    SessionStore,
    MembershipStore,
    InviteStore,
    OrganisationLinkStore,
    SignInLinkStore,
    ExecutionStore,
    CommitReportStore,
    RepositorySettingsStore,
    RepositoryLinkStore,
    OutboxStore,
    WebhookEventStore,
    RetentionStore {
  /**
   * Resolves when the store answers a trivial query within its deadline, else rejects;
   * used by the readiness check. Stores without it are always ready.
   */
  ping?(): Promise<void>;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
}
