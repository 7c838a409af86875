import type {
  Carryforward,
  CiTrust,
  CodeHostKind,
  ExpectedParts,
  FeedbackPlan,
  MembershipSource,
  PartsState,
} from '@covgate/core';
import { parseParts, serialiseParts } from '@covgate/core/storage-kit';
import { buildIndexes, INDEXES, type IndexSpec } from '@covgate/sql-kit/indexes';
import { type SQL, sql } from 'drizzle-orm';
import {
  blob,
  customType,
  index,
  integer,
  primaryKey,
  real,
  type SQLiteColumn,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';

// SQLite compares and sorts TEXT byte for byte (BINARY collation) unless told otherwise:
// repository names, slugs and ids stay case-sensitive with no collation clause.

/** A commit report's parts (see `PartsState`) as JSON text, read back parsed. */
const partsState = customType<{ data: PartsState; driverData: string }>({
  dataType: () => 'text',
  toDriver: (parts) => serialiseParts(parts),
  fromDriver: (text) => parseParts(text),
});

/** The parts a repository expects (names or a count) as JSON text. */
const expectedParts = customType<{ data: ExpectedParts; driverData: string }>({
  dataType: () => 'text',
  toDriver: (expected) => JSON.stringify(expected),
  fromDriver: (text) => JSON.parse(text) as ExpectedParts,
});

/** Which parts a repository carries forward, as JSON text. */
const carryforwardParts = customType<{ data: Carryforward; driverData: string }>({
  dataType: () => 'text',
  toDriver: (carryforward) => JSON.stringify(carryforward),
  fromDriver: (text) => JSON.parse(text) as Carryforward,
});

/** Whole-second UTC instants stored as Unix milliseconds, read and written as `Date`. */
const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' });

/** A table's shared indexes ({@link INDEXES}), built with SQLite's index builders. */
const indexesOf = (
  columns: Readonly<Record<string, SQLiteColumn | SQL>>,
  specs: Readonly<Record<string, IndexSpec<Record<string, unknown>>>>,
) =>
  buildIndexes(columns, specs, { index, uniqueIndex, descending: (column) => sql`${column} DESC` });

/** Organisations; `slug` is unique and case-sensitive. */
export const organisations = sqliteTable(
  'organisations',
  {
    id: text('id').primaryKey(),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    plan: text('plan', { enum: ['free', 'team', 'enterprise'] }).notNull(),
    createdAt: timestamp('created_at').notNull(),
    /** The user whose personal organisation this is (null for every other organisation). */
    personalUserId: text('personal_user_id'),
    /** Provider time of the last plan change applied from a webhook event. */
    planChangedAt: timestamp('plan_changed_at'),
  },
  (t) => indexesOf(t, INDEXES.organisations),
);

/** Users known through the code host; one row per (provider, external id). */
export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    provider: text('provider').notNull(),
    externalId: text('external_id').notNull(),
    login: text('login').notNull(),
    createdAt: timestamp('created_at').notNull(),
  },
  (t) => indexesOf(t, INDEXES.users),
);

/** API tokens: only the argon2id hash of the raw value is kept. */
export const tokens = sqliteTable(
  'tokens',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull(),
    name: text('name').notNull(),
    /** JSON array of scope names. */
    scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
    agentType: text('agent_type').notNull(),
    hash: text('hash').notNull(),
    status: text('status', { enum: ['active', 'rotating', 'revoked'] }).notNull(),
    createdAt: timestamp('created_at').notNull(),
    lastUsedAt: timestamp('last_used_at'),
    gracePeriodEndsAt: timestamp('grace_period_ends_at'),
  },
  (t) => indexesOf(t, INDEXES.tokens),
);

/** Server-side sessions, found by the HMAC of their bearer token. */
export const sessions = sqliteTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    userId: text('user_id').notNull(),
    orgId: text('org_id').notNull(),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
  },
  (t) => indexesOf(t, INDEXES.sessions),
);

/** The roles of a membership. */
const ROLE_ENUM = { enum: ['owner', 'admin', 'member'] } as const;

/** Who belongs to which organisation; one row per (organisation, user). */
export const memberships = sqliteTable(
  'memberships',
  {
    orgId: text('org_id').notNull(),
    userId: text('user_id').notNull(),
    role: text('role', ROLE_ENUM).notNull(),
    createdAt: timestamp('created_at').notNull(),
    /** How the member joined through the organisation's link to a code host, if so. */
    source: text('source').$type<MembershipSource>(),
  },
  (t) => [
    ...indexesOf(t, INDEXES.memberships),
    primaryKey({ name: 'memberships_pk', columns: [t.orgId, t.userId] }),
  ],
);

/** An organisation's link to an organisation on a code host (lower case); one each way. */
export const organisationLinks = sqliteTable(
  'organisation_links',
  {
    orgId: text('org_id').primaryKey(),
    host: text('host').$type<CodeHostKind>().notNull().default('github'),
    organisation: text('organisation').notNull(),
    linkedBy: text('linked_by').notNull(),
    linkedAt: timestamp('linked_at').notNull(),
  },
  (t) => indexesOf(t, INDEXES.organisationLinks),
);

/** An organisation's minimums: the lowest targets any of its runs is judged with. */
export const organisationSettings = sqliteTable('organisation_settings', {
  orgId: text('org_id').primaryKey(),
  minPatchTarget: real('min_patch_target'),
  minProjectTarget: real('min_project_target'),
  updatedBy: text('updated_by').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
});

/** Invites to organisations, found by the HMAC of their token; accepted at most once. */
export const invites = sqliteTable(
  'invites',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    role: text('role', ROLE_ENUM).notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
    acceptedBy: text('accepted_by'),
    acceptedAt: timestamp('accepted_at'),
    revokedAt: timestamp('revoked_at'),
  },
  (t) => indexesOf(t, INDEXES.invites),
);

/** One-time sign-in links, found by the HMAC of their token; `used_at` makes them single-use. */
export const signInLinks = sqliteTable(
  'sign_in_links',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    userId: text('user_id').notNull(),
    orgId: text('org_id').notNull(),
    /** The role the user joins with when not a member yet (links made before roles: owner). */
    role: text('role', ROLE_ENUM).notNull().default('owner'),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
    usedAt: timestamp('used_at'),
  },
  (t) => indexesOf(t, INDEXES.signInLinks),
);

/** The condition of a record that can be a baseline; queries repeat it word for word. */
export const BASELINE_ELIGIBLE = sql`"outcome" in ('pass', 'warn')`;

/** Execution records of coverage-gate runs. */
export const executions = sqliteTable(
  'executions',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull(),
    repo: text('repo').notNull(),
    branch: text('branch').notNull(),
    outcome: text('outcome', { enum: ['pass', 'warn', 'fail', 'pending', 'skipped'] }).notNull(),
    delta: text('delta').notNull(),
    coverage: real('coverage').notNull(),
    /** Lowercase hex commit of the run, or null when the client did not send one. */
    commit: text('commit'),
    createdAt: timestamp('created_at').notNull(),
    /** The branch the run was compared against; null on rows stored before it was kept. */
    baseBranch: text('base_branch'),
    /** A copy of the baseline record taken at ingest: all null when there was none. */
    baselineId: text('baseline_id'),
    baselineCoverage: real('baseline_coverage'),
    baselineCommit: text('baseline_commit'),
    baselineCreatedAt: timestamp('baseline_created_at'),
    /** How the baseline was chosen; null without one and on rows from before it was kept. */
    baselineSelection: text('baseline_selection', { enum: ['base_commit', 'latest'] }),
    /** The monorepo component; null for the whole repository. */
    component: text('component'),
    pullRequest: integer('pull_request'),
    baseCommit: text('base_commit'),
    /** The patch's line counts and the target it was judged with; all null without a patch. */
    patchCovered: integer('patch_covered'),
    patchCoverable: integer('patch_coverable'),
    patchTarget: real('patch_target'),
    patchTargetSource: text('patch_target_source', {
      enum: ['run', 'repository', 'default', 'organisation'],
    }),
    /** The rule that decided the outcome; null on rows from before it was kept. */
    decidedBy: text('decided_by', {
      enum: ['delta', 'patch', 'target', 'branches', 'patch_branches'],
    }),
    /** Entries of the run's per-file list (in `execution_files`); null without one. */
    fileCount: integer('file_count'),
    policyDigest: text('policy_digest'),
    projectTarget: real('project_target'),
    /** Where the project target came from: the run, or the organisation's minimum. */
    projectTargetSource: text('project_target_source', { enum: ['run', 'organisation'] }),
    policyCommit: text('policy_commit'),
    /** The policy file the run's change edits; null when none. */
    policyEdited: text('policy_edited', { enum: ['covgate.yml', '.covgate.yml'] }),
    /** The comment's sections the run's policy asks for (JSON); null for all. */
    commentSections: text('comment_sections', { mode: 'json' }).$type<
      ('verdict' | 'patch' | 'files')[]
    >(),
    /** The run's branch counts (issue 43); both null when it sent none. */
    branchesCovered: integer('branches_covered'),
    branchesTotal: integer('branches_total'),
    /** The branch rules' targets and the patch's branch counts; null when the run sent none. */
    branchTarget: real('branch_target'),
    patchBranchesCovered: integer('patch_branches_covered'),
    patchBranchesTotal: integer('patch_branches_total'),
    patchBranchTarget: real('patch_branch_target'),
    /** A commit's report merged from parts: its parts' state; null for a run sent whole. */
    parts: partsState('parts'),
    /** Who posted the run when it was a CI identity (`oidc:github:acme/api@refs/heads/main`). */
    postedBy: text('posted_by'),
    /** Why a `skipped` record's commit has nothing to measure; null for every other run. */
    skipReason: text('skip_reason'),
    /** The run's feedback decisions (JSON, see `FeedbackPlan`); null for older runs. */
    feedback: text('feedback', { mode: 'json' }).$type<FeedbackPlan>(),
  },
  (t) => [
    ...indexesOf(t, INDEXES.executions),
    // The reports still waiting for parts, for the deadline's sweep: few rows at any time.
    index('executions_pending_idx').on(t.createdAt).where(sql`"outcome" = 'pending'`),
    // Latest pass/warn record of a component's branch (baseline): no failures in it.
    index('executions_component_baseline_idx')
      .on(t.orgId, t.repo, t.component, t.branch, t.createdAt, t.id)
      .where(BASELINE_ELIGIBLE),
  ],
);

/**
 * The per-file list of a run, gzip-compressed JSON as the API made it: one row per run that
 * sent one, read only by the run's detail, so listing runs never touches it.
 */
export const executionFiles = sqliteTable('execution_files', {
  executionId: text('execution_id').primaryKey(),
  orgId: text('org_id').notNull(),
  data: blob('data', { mode: 'buffer' }).notNull(),
});

/**
 * The line data of a run, in its stored form (`encodeRunLines`: compressed chunks behind an
 * index): one row per run that sent any, read for one file or for a merge of parts.
 */
export const executionLines = sqliteTable('execution_lines', {
  executionId: text('execution_id').primaryKey(),
  orgId: text('org_id').notNull(),
  data: blob('data', { mode: 'buffer' }).notNull(),
});

/**
 * Runs whose per-file list, line data and part uploads retention deleted, and when: what lets
 * a run's file view say its detail was pruned rather than never sent.
 */
export const prunedExecutions = sqliteTable('pruned_executions', {
  executionId: text('execution_id').primaryKey(),
  orgId: text('org_id').notNull(),
  prunedAt: timestamp('pruned_at').notNull(),
});

/** Settings of a repository (its default patch target). */
export const repositorySettings = sqliteTable(
  'repository_settings',
  {
    orgId: text('org_id').notNull(),
    repo: text('repo').notNull(),
    patchTarget: real('patch_target'),
    /** The repository's URL on its code host, or null. */
    webUrl: text('web_url'),
    /** Who set `web_url`: a `PATCH` (`api`, final) or a run's `repo_url` (`ingest`). */
    webUrlSource: text('web_url_source', { enum: ['api', 'ingest'] }),
    /** The parts a commit's report waits for, or null. */
    expectedParts: expectedParts('expected_parts'),
    /** Minutes a report waits for its parts; null for covgate's default. */
    partsDeadlineMinutes: integer('parts_deadline_minutes'),
    /** The parts carried forward when missing (`{"all":true}` or `{"names":[...]}`), or null. */
    carryforwardParts: carryforwardParts('carryforward_parts'),
    /** The CI identities trusted to post runs without a token, as JSON; null: none. */
    ciTrust: text('ci_trust', { mode: 'json' }).$type<CiTrust[]>(),
    updatedAt: timestamp('updated_at').notNull(),
  },
  (t) => [primaryKey({ name: 'repository_settings_pk', columns: [t.orgId, t.repo] })],
);

/** Which run is the report of a commit's component: one per (org, repo, commit, component). */
export const commitReports = sqliteTable(
  'commit_reports',
  {
    orgId: text('org_id').notNull(),
    repo: text('repo').notNull(),
    commit: text('commit').notNull(),
    /** The component, or `''` for the whole repository (a key part cannot be null). */
    component: text('component').notNull(),
    executionId: text('execution_id').notNull(),
  },
  (t) => [
    primaryKey({ name: 'commit_reports_pk', columns: [t.orgId, t.repo, t.commit, t.component] }),
  ],
);

/** The part uploads of commits' reports, kept to merge again when one is replaced. */
export const executionParts = sqliteTable(
  'execution_parts',
  {
    executionId: text('execution_id').notNull(),
    name: text('name').notNull(),
    orgId: text('org_id').notNull(),
    receivedAt: timestamp('received_at').notNull(),
    coverage: real('coverage').notNull(),
    lines: blob('lines', { mode: 'buffer' }).notNull(),
  },
  (t) => [primaryKey({ name: 'execution_parts_pk', columns: [t.executionId, t.name] })],
);

/**
 * Per-repository execution totals and a pointer to the newest record, both maintained in the
 * insert's transaction so listing an organisation's repositories reads one row per repository.
 */
export const executionCounters = sqliteTable(
  'execution_counters',
  {
    orgId: text('org_id').notNull(),
    repo: text('repo').notNull(),
    total: integer('total').notNull(),
    /** Id of the newest record (`created_at` desc, then `id` desc). */
    latestId: text('latest_id'),
    latestCreatedAt: timestamp('latest_created_at'),
  },
  (t) => [primaryKey({ name: 'execution_counters_pk', columns: [t.orgId, t.repo] })],
);

/** Idempotency claims of inbound webhook events. */
export const webhookEvents = sqliteTable(
  'webhook_events',
  {
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    claimedAt: timestamp('claimed_at').notNull(),
  },
  (t) => [primaryKey({ name: 'webhook_events_pk', columns: [t.provider, t.eventId] })],
);

/**
 * Idempotency keys of ingests, unique per organisation, each pointing at the execution its
 * first request recorded; written in the execution's transaction.
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    orgId: text('org_id').notNull(),
    key: text('idempotency_key').notNull(),
    /** Hex SHA-256 of the canonical request. */
    requestDigest: text('request_digest').notNull(),
    executionId: text('execution_id').notNull(),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
  },
  (t) => [
    ...indexesOf(t, INDEXES.idempotencyKeys),
    primaryKey({ name: 'idempotency_keys_pk', columns: [t.orgId, t.key] }),
  ],
);

/**
 * Repositories linked to code-host repositories (GitHub, GitLab, Gitea): where statuses and
 * the merge/pull-request comment go, and the encrypted credential to send them with.
 */
export const repositoryLinks = sqliteTable(
  'repository_links',
  {
    orgId: text('org_id').notNull(),
    repo: text('repo').notNull(),
    host: text('host').$type<CodeHostKind>().notNull().default('github'),
    repository: text('repository').notNull(),
    apiUrl: text('api_url').notNull().default('https://api.github.com'),
    /** Ciphertext made by the caller; the store never reads it. */
    credential: text('credential').notNull(),
    credentialHint: text('credential_hint').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
  },
  (t) => [primaryKey({ name: 'repository_links_pk', columns: [t.orgId, t.repo] })],
);

/** The outbox: deliveries to the code host, written in their run's transaction. */
export const deliveries = sqliteTable(
  'deliveries',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull(),
    repo: text('repo').notNull(),
    executionId: text('execution_id').notNull(),
    kind: text('kind', { enum: ['status_project', 'status_patch', 'comment'] }).notNull(),
    /** JSON text, never a credential. */
    payload: text('payload').notNull(),
    state: text('state', { enum: ['pending', 'sent', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull(),
    nextAttemptAt: timestamp('next_attempt_at').notNull(),
    leaseOwner: text('lease_owner'),
    leaseUntil: timestamp('lease_until'),
    lastError: text('last_error'),
    lastStatus: integer('last_status'),
    createdAt: timestamp('created_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
    sentAt: timestamp('sent_at'),
    /** What sending it did (`comment_created`...); null until sent. */
    sentResult: text('sent_result', {
      enum: ['status_set', 'comment_created', 'comment_updated', 'comment_newer'],
    }),
  },
  (t) => indexesOf(t, INDEXES.deliveries),
);
