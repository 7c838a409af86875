import type {
  DeliveryRecord,
  ExecutionRecord,
  InviteRecord,
  Membership,
  Organisation,
  OrganisationLink,
  OrganisationSettings,
  PartUpload,
  RepositoryLink,
  RepositorySettings,
  SessionRecord,
  SignInLinkRecord,
  TokenRecord,
  User,
} from '../store.js';
import { MemoryLineData } from './line-data.js';
import type { SortedExecutions } from './sorted-executions.js';
import { TokenHashedRecords } from './token-hashed-records.js';

/**
 * Runs of one repository: all of them, and per component and branch (see `branchKey` in
 * `executions.ts`) for baseline and badge look-ups.
 */
export interface RepoExecutions {
  all: SortedExecutions;
  byBranch: Map<string, SortedExecutions>;
  count: number;
  /** The newest record: what a SQL store keeps on its counter row. */
  latest: ExecutionRecord | null;
}

/** A stored idempotency key: its request digest, its run and when it dies. */
export interface StoredIdempotencyKey {
  requestDigest: string;
  record: ExecutionRecord;
  expiresAt: Date;
}

/**
 * The memory store's tables, the counterpart of a SQL store's schema: each entity's module
 * (`organisations.ts`, `tokens.ts`...) reads and writes its own, and reads another entity's
 * where the SQL store would join (a member's login, an invite's maker). Records are stored as
 * copies; the modules copy them in and out.
 */
export interface MemoryTables {
  readonly organisations: Map<string, Organisation>;
  readonly organisationIdBySlug: Map<string, string>;
  readonly personalOrganisationIdByUser: Map<string, string>;
  /** Time of the last plan change applied by `applyPlanChange`, per organisation id. */
  readonly planChangedAt: Map<string, number>;
  readonly users: Map<string, User>;
  /** User ids by {@link pairKey} of provider and external id. */
  readonly userIdByIdentity: Map<string, string>;
  readonly tokens: Map<string, TokenRecord>;
  readonly tokenIdsByOrg: Map<string, Set<string>>;
  readonly sessions: TokenHashedRecords<SessionRecord>;
  /** Memberships by organisation id, then by user id. */
  readonly members: Map<string, Map<string, Membership>>;
  /** Links by organisation id. */
  readonly organisationLinks: Map<string, OrganisationLink>;
  /** By organisation id. */
  readonly organisationSettings: Map<string, OrganisationSettings>;
  readonly invites: TokenHashedRecords<InviteRecord>;
  readonly signInLinks: TokenHashedRecords<SignInLinkRecord>;
  readonly executionsById: Map<string, ExecutionRecord>;
  /** Per-file lists by run id, with the organisation that owns them. */
  readonly executionFiles: Map<string, { orgId: string; files: Uint8Array }>;
  /** Line data by run id, with the organisation that owns it. */
  readonly executionLines: MemoryLineData;
  /** Runs by organisation id, then by repository. */
  readonly executionsByOrg: Map<string, Map<string, RepoExecutions>>;
  /** Commits' reports: run ids by the JSON of (organisation, repository, commit, component). */
  readonly commitReports: Map<string, string>;
  /** Part uploads by run id, then by part name. */
  readonly partUploads: Map<string, Map<string, PartUpload>>;
  /** By {@link pairKey} of organisation id and key. */
  readonly idempotencyKeys: Map<string, StoredIdempotencyKey>;
  /** By {@link pairKey} of organisation id and repository. */
  readonly repositorySettings: Map<string, RepositorySettings>;
  /** By {@link pairKey} of organisation id and repository. */
  readonly repositoryLinks: Map<string, RepositoryLink>;
  /** Claim instants by {@link pairKey} of provider and event id. */
  readonly webhookClaims: Map<string, Date>;
  /** The outbox, by delivery id, in insertion (so id) order. */
  readonly deliveries: Map<string, DeliveryRecord>;
  /** When each run's detail was pruned, by run id. */
  readonly prunedAt: Map<string, Date>;
}

/** Empty tables. */
export function createTables(): MemoryTables {
  return {
    organisations: new Map(),
    organisationIdBySlug: new Map(),
    personalOrganisationIdByUser: new Map(),
    planChangedAt: new Map(),
    users: new Map(),
    userIdByIdentity: new Map(),
    tokens: new Map(),
    tokenIdsByOrg: new Map(),
    sessions: new TokenHashedRecords('session'),
    members: new Map(),
    organisationLinks: new Map(),
    organisationSettings: new Map(),
    invites: new TokenHashedRecords('invite'),
    signInLinks: new TokenHashedRecords('sign-in link'),
    executionsById: new Map(),
    executionFiles: new Map(),
    executionLines: new MemoryLineData(),
    executionsByOrg: new Map(),
    commitReports: new Map(),
    partUploads: new Map(),
    idempotencyKeys: new Map(),
    repositorySettings: new Map(),
    repositoryLinks: new Map(),
    webhookClaims: new Map(),
    deliveries: new Map(),
    prunedAt: new Map(),
  };
}

/** A map key for a pair of strings that no choice of the strings can make ambiguous. */
export const pairKey = (first: string, second: string): string => JSON.stringify([first, second]);
