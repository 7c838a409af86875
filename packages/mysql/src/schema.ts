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
  bigint,
  boolean,
  customType,
  datetime,
  decimal,
  index,
  int,
  type MySqlColumn,
  mysqlEnum,
  mysqlTable,
  primaryKey,
  uniqueIndex,
} from 'drizzle-orm/mysql-core';

/**
 * A `varchar` in full Unicode compared byte for byte (`utf8mb4_bin`), whatever the server's
 * defaults: repository names, slugs and ids are case-sensitive (`Repo` and `repo` are two
 * repositories).
 */
const exactVarchar = customType<{ data: string; config: { length: number } }>({
  dataType: (config) =>
    `varchar(${config?.length ?? 255}) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`,
});

/** A value kept as JSON in a `text` column (read back parsed). */
function jsonText<Data>(name: string) {
  return customType<{ data: Data; driverData: string }>({
    dataType: () => 'text',
    toDriver: (value) => JSON.stringify(value),
    fromDriver: (value) => JSON.parse(value) as Data,
  })(name);
}

/** A `varchar` of ASCII compared byte for byte, for values that are ASCII by contract. */
const asciiVarchar = customType<{ data: string; config: { length: number } }>({
  dataType: (config) => `varchar(${config?.length ?? 255}) CHARACTER SET ascii COLLATE ascii_bin`,
});

/** A `mediumblob` (up to 16 MiB) read and written as a `Buffer`. */
const mediumBlob = customType<{ data: Buffer; driverData: Buffer }>({
  dataType: () => 'mediumblob',
});

/** A `text` in full Unicode, whatever the server's default character set. */
const unicodeText = customType<{ data: string }>({
  dataType: () => 'text CHARACTER SET utf8mb4 COLLATE utf8mb4_bin',
});

/**
 * A list of names kept as a JSON array in a Unicode `text`, read back as the list (as SQLite's
 * JSON text column is); a value that is not an array of strings fails the read.
 */
const nameList = customType<{ data: string[]; driverData: string }>({
  dataType: () => 'text CHARACTER SET utf8mb4 COLLATE utf8mb4_bin',
  toDriver: (names) => JSON.stringify(names),
  fromDriver: (text) => {
    const names: unknown = JSON.parse(text);
    if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) {
      throw new Error('malformed list of names');
    }
    return names;
  },
});

/** A commit report's parts (see `PartsState`) as JSON in an ASCII `text`, read back parsed. */
const partsState = customType<{ data: PartsState; driverData: string }>({
  dataType: () => 'text CHARACTER SET ascii COLLATE ascii_bin',
  toDriver: (parts) => serialiseParts(parts),
  fromDriver: (text) => parseParts(text),
});

/** The parts a repository expects (names or a count) as JSON in an ASCII `text`. */
const expectedParts = customType<{ data: ExpectedParts; driverData: string }>({
  dataType: () => 'text CHARACTER SET ascii COLLATE ascii_bin',
  toDriver: (expected) => JSON.stringify(expected),
  fromDriver: (text) => JSON.parse(text) as ExpectedParts,
});

/** Which parts a repository carries forward, as JSON in an ASCII `text`. */
const carryforwardParts = customType<{ data: Carryforward; driverData: string }>({
  dataType: () => 'text CHARACTER SET ascii COLLATE ascii_bin',
  toDriver: (carryforward) => JSON.stringify(carryforward),
  fromDriver: (text) => JSON.parse(text) as Carryforward,
});

/** Column sizes chosen so every composite index stays under InnoDB's 3072-byte key limit. */
const ID = { length: 64 };
const NAME = { length: 255 };

/** Whole-second UTC timestamps, read and written as `Date`. */
const timestamp = (name: string) => datetime(name, { mode: 'date', fsp: 0 });

/** A table's shared indexes ({@link INDEXES}), built with MySQL's index builders. */
const indexesOf = (
  columns: Readonly<Record<string, MySqlColumn | SQL>>,
  specs: Readonly<Record<string, IndexSpec<Record<string, unknown>>>>,
) =>
  buildIndexes(columns, specs, {
    index,
    uniqueIndex,
    descending: (column) => sql.raw(`\`${(column as MySqlColumn).name}\` DESC`),
  });

/** Organisations; `slug` is unique and case-sensitive. */
export const organisations = mysqlTable(
  'organisations',
  {
    id: exactVarchar('id', ID).primaryKey(),
    slug: exactVarchar('slug', NAME).notNull(),
    name: exactVarchar('name', NAME).notNull(),
    plan: mysqlEnum('plan', ['free', 'team', 'enterprise']).notNull(),
    createdAt: timestamp('created_at').notNull(),
    /** The user whose personal organisation this is (null for every other organisation). */
    personalUserId: exactVarchar('personal_user_id', ID),
    /** Provider time of the last plan change applied from a webhook event. */
    planChangedAt: timestamp('plan_changed_at'),
  },
  (t) => indexesOf(t, INDEXES.organisations),
);

/** Users known through the code host; one row per (provider, external id). */
export const users = mysqlTable(
  'users',
  {
    id: exactVarchar('id', ID).primaryKey(),
    provider: exactVarchar('provider', { length: 64 }).notNull(),
    externalId: exactVarchar('external_id', NAME).notNull(),
    login: exactVarchar('login', NAME).notNull(),
    createdAt: timestamp('created_at').notNull(),
  },
  (t) => indexesOf(t, INDEXES.users),
);

/** API tokens: only the argon2id hash of the raw value is kept. */
export const tokens = mysqlTable(
  'tokens',
  {
    id: exactVarchar('id', ID).primaryKey(),
    orgId: exactVarchar('org_id', ID).notNull(),
    name: exactVarchar('name', NAME).notNull(),
    /** JSON array of scope names. */
    scopes: nameList('scopes').notNull(),
    agentType: exactVarchar('agent_type', NAME).notNull(),
    hash: exactVarchar('hash', NAME).notNull(),
    status: mysqlEnum('status', ['active', 'rotating', 'revoked']).notNull(),
    createdAt: timestamp('created_at').notNull(),
    lastUsedAt: timestamp('last_used_at'),
    gracePeriodEndsAt: timestamp('grace_period_ends_at'),
  },
  (t) => indexesOf(t, INDEXES.tokens),
);

/** Server-side sessions, found by the HMAC of their bearer token. */
export const sessions = mysqlTable(
  'sessions',
  {
    id: exactVarchar('id', ID).primaryKey(),
    tokenHash: exactVarchar('token_hash', { length: 128 }).notNull(),
    userId: exactVarchar('user_id', ID).notNull(),
    orgId: exactVarchar('org_id', ID).notNull(),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
  },
  (t) => indexesOf(t, INDEXES.sessions),
);

/** The roles of a membership. */
const ROLES = ['owner', 'admin', 'member'] as const;

/** Who belongs to which organisation; one row per (organisation, user). */
export const memberships = mysqlTable(
  'memberships',
  {
    orgId: exactVarchar('org_id', ID).notNull(),
    userId: exactVarchar('user_id', ID).notNull(),
    role: mysqlEnum('role', ROLES).notNull(),
    createdAt: timestamp('created_at').notNull(),
    /** How the member joined through the organisation's link to a code host, if so. */
    source: exactVarchar('source', { length: 16 }).$type<MembershipSource>(),
  },
  (t) => [
    ...indexesOf(t, INDEXES.memberships),
    primaryKey({ name: 'memberships_pk', columns: [t.orgId, t.userId] }),
  ],
);

/** An organisation's link to an organisation on a code host (lower case); one each way. */
export const organisationLinks = mysqlTable(
  'organisation_links',
  {
    orgId: exactVarchar('org_id', ID).primaryKey(),
    host: exactVarchar('host', { length: 16 }).$type<CodeHostKind>().notNull().default('github'),
    organisation: exactVarchar('organisation', { length: 255 }).notNull(),
    linkedBy: exactVarchar('linked_by', ID).notNull(),
    linkedAt: timestamp('linked_at').notNull(),
  },
  (t) => indexesOf(t, INDEXES.organisationLinks),
);

/** An organisation's minimums: the lowest targets any of its runs is judged with. */
export const organisationSettings = mysqlTable('organisation_settings', {
  orgId: exactVarchar('org_id', ID).primaryKey(),
  minPatchTarget: decimal('min_patch_target', { precision: 5, scale: 2, mode: 'number' }),
  minProjectTarget: decimal('min_project_target', { precision: 5, scale: 2, mode: 'number' }),
  updatedBy: exactVarchar('updated_by', ID).notNull(),
  updatedAt: timestamp('updated_at').notNull(),
});

/** Invites to organisations, found by the HMAC of their token; accepted at most once. */
export const invites = mysqlTable(
  'invites',
  {
    id: exactVarchar('id', ID).primaryKey(),
    orgId: exactVarchar('org_id', ID).notNull(),
    tokenHash: exactVarchar('token_hash', { length: 128 }).notNull(),
    role: mysqlEnum('role', ROLES).notNull(),
    createdBy: exactVarchar('created_by', ID).notNull(),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
    acceptedBy: exactVarchar('accepted_by', ID),
    acceptedAt: timestamp('accepted_at'),
    revokedAt: timestamp('revoked_at'),
  },
  (t) => indexesOf(t, INDEXES.invites),
);

/** One-time sign-in links, found by the HMAC of their token; `used_at` makes them single-use. */
export const signInLinks = mysqlTable(
  'sign_in_links',
  {
    id: exactVarchar('id', ID).primaryKey(),
    tokenHash: exactVarchar('token_hash', { length: 128 }).notNull(),
    userId: exactVarchar('user_id', ID).notNull(),
    orgId: exactVarchar('org_id', ID).notNull(),
    /** The role the user joins with when not a member yet (links made before roles: owner). */
    role: mysqlEnum('role', ROLES).notNull().default('owner'),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
    usedAt: timestamp('used_at'),
  },
  (t) => indexesOf(t, INDEXES.signInLinks),
);

/** Execution records of coverage-gate runs. */
export const executions = mysqlTable(
  'executions',
  {
    id: exactVarchar('id', ID).primaryKey(),
    orgId: exactVarchar('org_id', ID).notNull(),
    repo: exactVarchar('repo', NAME).notNull(),
    branch: exactVarchar('branch', NAME).notNull(),
    outcome: mysqlEnum('outcome', ['pass', 'warn', 'fail', 'pending', 'skipped']).notNull(),
    delta: exactVarchar('delta', { length: 8 }).notNull(),
    coverage: decimal('coverage', { precision: 5, scale: 2, mode: 'number' }).notNull(),
    /** Lowercase hex commit of the run, or null when the client did not send one. */
    commit: exactVarchar('commit', { length: 64 }),
    createdAt: timestamp('created_at').notNull(),
    /** The branch the run was compared against; null on rows stored before it was kept. */
    baseBranch: exactVarchar('base_branch', NAME),
    /** A copy of the baseline record taken at ingest: all null when there was none. */
    baselineId: exactVarchar('baseline_id', ID),
    baselineCoverage: decimal('baseline_coverage', { precision: 5, scale: 2, mode: 'number' }),
    baselineCommit: exactVarchar('baseline_commit', { length: 64 }),
    baselineCreatedAt: timestamp('baseline_created_at'),
    /**
     * True for `pass` and `warn`: lets the baseline lookup read one index entry instead of
     * skipping over a run of failed records. Derived by the server, so it cannot drift.
     * Nullable only because MariaDB refuses NOT NULL on a generated column.
     */
    baselineEligible: boolean('baseline_eligible').generatedAlwaysAs(
      sql`(\`outcome\` in ('pass','warn'))`,
      { mode: 'stored' },
    ),
    /** How the baseline was chosen; null without one and on rows from before it was kept. */
    baselineSelection: mysqlEnum('baseline_selection', ['base_commit', 'latest']),
    /** The monorepo component (ASCII by contract); null for the whole repository. */
    component: asciiVarchar('component', { length: 64 }),
    pullRequest: int('pull_request', { unsigned: true }),
    baseCommit: exactVarchar('base_commit', { length: 64 }),
    /** The patch's line counts and the target it was judged with; all null without a patch. */
    patchCovered: int('patch_covered', { unsigned: true }),
    patchCoverable: int('patch_coverable', { unsigned: true }),
    patchTarget: decimal('patch_target', { precision: 5, scale: 2, mode: 'number' }),
    patchTargetSource: mysqlEnum('patch_target_source', [
      'run',
      'repository',
      'default',
      'organisation',
    ]),
    /** The rule that decided the outcome; null on rows from before it was kept. */
    decidedBy: mysqlEnum('decided_by', ['delta', 'patch', 'target', 'branches', 'patch_branches']),
    /** Entries of the run's per-file list (in `execution_files`); null without one. */
    fileCount: int('file_count', { unsigned: true }),
    policyDigest: exactVarchar('policy_digest', { length: 64 }),
    projectTarget: decimal('project_target', { precision: 5, scale: 2, mode: 'number' }),
    /** Where the project target came from: the run, or the organisation's minimum. */
    projectTargetSource: mysqlEnum('project_target_source', ['run', 'organisation']),
    policyCommit: exactVarchar('policy_commit', { length: 64 }),
    /** The policy file the run's change edits; null when none. */
    policyEdited: exactVarchar('policy_edited', { length: 16 }).$type<
      'covgate.yml' | '.covgate.yml'
    >(),
    /** The comment's sections the run's policy asks for (JSON); null for all. */
    commentSections: jsonText<('verdict' | 'patch' | 'files')[]>('comment_sections'),
    /** The run's branch counts (issue 43); both null when it sent none. */
    branchesCovered: int('branches_covered', { unsigned: true }),
    branchesTotal: int('branches_total', { unsigned: true }),
    /** The branch rules' targets and the patch's branch counts; null when the run sent none. */
    branchTarget: decimal('branch_target', { precision: 5, scale: 2, mode: 'number' }),
    patchBranchesCovered: int('patch_branches_covered', { unsigned: true }),
    patchBranchesTotal: int('patch_branches_total', { unsigned: true }),
    patchBranchTarget: decimal('patch_branch_target', { precision: 5, scale: 2, mode: 'number' }),
    /** A commit's report merged from parts: its parts' state; null for a run sent whole. */
    parts: partsState('parts'),
    /** Who posted the run when it was a CI identity (`oidc:github:acme/api@refs/heads/main`). */
    postedBy: exactVarchar('posted_by', { length: 512 }),
    /** Why a `skipped` record's commit has nothing to measure; null for every other run. */
    skipReason: exactVarchar('skip_reason', { length: 255 }),
    /** The run's feedback decisions (JSON, see `FeedbackPlan`); null for older runs. */
    feedback: jsonText<FeedbackPlan>('feedback'),
  },
  (t) => [
    ...indexesOf(t, INDEXES.executions),
    // The reports still waiting for parts, for the deadline's sweep: few rows at any time.
    index('executions_outcome_idx').on(t.outcome, t.createdAt),
    // Latest pass/warn record of a component's branch (baseline of the next run).
    index('executions_component_baseline_idx').on(
      t.orgId,
      t.repo,
      t.component,
      t.branch,
      t.baselineEligible,
      t.createdAt,
      t.id,
    ),
  ],
);

/**
 * The per-file list of a run, gzip-compressed JSON as the API made it: one row per run that
 * sent one, read only by the run's detail, so listing runs never touches it.
 */
export const executionFiles = mysqlTable('execution_files', {
  executionId: exactVarchar('execution_id', ID).primaryKey(),
  orgId: exactVarchar('org_id', ID).notNull(),
  data: mediumBlob('data').notNull(),
});

/**
 * The line data of a run, in its stored form (`encodeRunLines`: compressed chunks behind an
 * index): one row per run that sent any, read for one file or for a merge of parts.
 */
export const executionLines = mysqlTable('execution_lines', {
  executionId: exactVarchar('execution_id', ID).primaryKey(),
  orgId: exactVarchar('org_id', ID).notNull(),
  data: mediumBlob('data').notNull(),
});

/**
 * Runs whose per-file list, line data and part uploads retention deleted, and when: what lets
 * a run's file view say its detail was pruned rather than never sent.
 */
export const prunedExecutions = mysqlTable('pruned_executions', {
  executionId: exactVarchar('execution_id', ID).primaryKey(),
  orgId: exactVarchar('org_id', ID).notNull(),
  prunedAt: timestamp('pruned_at').notNull(),
});

/** Settings of a repository (its default patch target). */
export const repositorySettings = mysqlTable(
  'repository_settings',
  {
    orgId: exactVarchar('org_id', ID).notNull(),
    repo: exactVarchar('repo', NAME).notNull(),
    patchTarget: decimal('patch_target', { precision: 5, scale: 2, mode: 'number' }),
    /** The repository's URL on its code host, or null. */
    webUrl: asciiVarchar('web_url', { length: 512 }),
    /** Who set `web_url`: a `PATCH` (`api`, final) or a run's `repo_url` (`ingest`). */
    webUrlSource: mysqlEnum('web_url_source', ['api', 'ingest']),
    /** The parts a commit's report waits for, or null. */
    expectedParts: expectedParts('expected_parts'),
    /** Minutes a report waits for its parts; null for covgate's default. */
    partsDeadlineMinutes: int('parts_deadline_minutes', { unsigned: true }),
    /** The parts carried forward when missing (`{"all":true}` or `{"names":[...]}`), or null. */
    carryforwardParts: carryforwardParts('carryforward_parts'),
    /** The CI identities trusted to post runs without a token, as JSON; null: none. */
    ciTrust: jsonText<CiTrust[]>('ci_trust'),
    updatedAt: timestamp('updated_at').notNull(),
  },
  (t) => [primaryKey({ name: 'repository_settings_pk', columns: [t.orgId, t.repo] })],
);

/** Which run is the report of a commit's component: one per (org, repo, commit, component). */
export const commitReports = mysqlTable(
  'commit_reports',
  {
    orgId: exactVarchar('org_id', ID).notNull(),
    repo: exactVarchar('repo', NAME).notNull(),
    commit: exactVarchar('commit', { length: 64 }).notNull(),
    /** The component, or `''` for the whole repository (a key part cannot be null). */
    component: asciiVarchar('component', { length: 64 }).notNull(),
    executionId: exactVarchar('execution_id', ID).notNull(),
  },
  (t) => [
    primaryKey({ name: 'commit_reports_pk', columns: [t.orgId, t.repo, t.commit, t.component] }),
  ],
);

/** The part uploads of commits' reports, kept to merge again when one is replaced. */
export const executionParts = mysqlTable(
  'execution_parts',
  {
    executionId: exactVarchar('execution_id', ID).notNull(),
    name: asciiVarchar('name', { length: 64 }).notNull(),
    orgId: exactVarchar('org_id', ID).notNull(),
    receivedAt: timestamp('received_at').notNull(),
    coverage: decimal('coverage', { precision: 5, scale: 2, mode: 'number' }).notNull(),
    lines: mediumBlob('lines').notNull(),
  },
  (t) => [primaryKey({ name: 'execution_parts_pk', columns: [t.executionId, t.name] })],
);

/**
 * Per-repository execution totals and a pointer to the newest record, both maintained in the
 * insert's transaction so listing an organisation's repositories reads one row per repository.
 */
export const executionCounters = mysqlTable(
  'execution_counters',
  {
    orgId: exactVarchar('org_id', ID).notNull(),
    repo: exactVarchar('repo', NAME).notNull(),
    total: bigint('total', { mode: 'number', unsigned: true }).notNull(),
    /** Id of the newest record (`created_at` desc, then `id` desc). */
    latestId: exactVarchar('latest_id', ID),
    latestCreatedAt: timestamp('latest_created_at'),
  },
  (t) => [primaryKey({ name: 'execution_counters_pk', columns: [t.orgId, t.repo] })],
);

/** Idempotency claims of inbound webhook events. */
export const webhookEvents = mysqlTable(
  'webhook_events',
  {
    provider: exactVarchar('provider', { length: 64 }).notNull(),
    eventId: exactVarchar('event_id', NAME).notNull(),
    claimedAt: timestamp('claimed_at').notNull(),
  },
  (t) => [primaryKey({ name: 'webhook_events_pk', columns: [t.provider, t.eventId] })],
);

/**
 * Idempotency keys of ingests, unique per organisation, each pointing at the execution its
 * first request recorded; written in the execution's transaction.
 */
export const idempotencyKeys = mysqlTable(
  'idempotency_keys',
  {
    orgId: exactVarchar('org_id', ID).notNull(),
    /** Visible ASCII only, so an ASCII binary column keeps the key short and exact. */
    key: asciiVarchar('idempotency_key', { length: 255 }).notNull(),
    /** Hex SHA-256 of the canonical request. */
    requestDigest: asciiVarchar('request_digest', { length: 64 }).notNull(),
    executionId: exactVarchar('execution_id', ID).notNull(),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
  },
  (t) => [
    ...indexesOf(t, INDEXES.idempotencyKeys),
    primaryKey({ name: 'idempotency_keys_pk', columns: [t.orgId, t.key] }),
  ],
);

/** A `mediumtext` (up to 16 MiB) in full Unicode. */
const unicodeMediumText = customType<{ data: string }>({
  dataType: () => 'mediumtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin',
});

/**
 * Repositories linked to code-host repositories (GitHub, GitLab, Gitea): where statuses and
 * the merge/pull-request comment go, and the encrypted credential to send them with.
 */
export const repositoryLinks = mysqlTable(
  'repository_links',
  {
    orgId: exactVarchar('org_id', ID).notNull(),
    repo: exactVarchar('repo', NAME).notNull(),
    host: exactVarchar('host', { length: 16 }).$type<CodeHostKind>().notNull().default('github'),
    repository: exactVarchar('repository', NAME).notNull(),
    apiUrl: exactVarchar('api_url', { length: 1024 }).notNull().default('https://api.github.com'),
    /** Ciphertext made by the caller; the store never reads it. */
    credential: unicodeText('credential').notNull(),
    credentialHint: exactVarchar('credential_hint', ID).notNull(),
    createdBy: exactVarchar('created_by', ID).notNull(),
    createdAt: timestamp('created_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
  },
  (t) => [primaryKey({ name: 'repository_links_pk', columns: [t.orgId, t.repo] })],
);

/** The outbox: deliveries to the code host, written in their run's transaction. */
export const deliveries = mysqlTable(
  'deliveries',
  {
    id: exactVarchar('id', ID).primaryKey(),
    orgId: exactVarchar('org_id', ID).notNull(),
    repo: exactVarchar('repo', NAME).notNull(),
    executionId: exactVarchar('execution_id', ID).notNull(),
    kind: mysqlEnum('kind', ['status_project', 'status_patch', 'comment']).notNull(),
    /** JSON text, never a credential. */
    payload: unicodeMediumText('payload').notNull(),
    state: mysqlEnum('state', ['pending', 'sent', 'failed']).notNull(),
    attempts: int('attempts', { unsigned: true }).notNull(),
    nextAttemptAt: timestamp('next_attempt_at').notNull(),
    leaseOwner: exactVarchar('lease_owner', { length: 128 }),
    leaseUntil: timestamp('lease_until'),
    lastError: unicodeText('last_error'),
    lastStatus: int('last_status'),
    createdAt: timestamp('created_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
    sentAt: timestamp('sent_at'),
    /** What sending it did (`comment_created`...); null until sent. */
    sentResult: mysqlEnum('sent_result', [
      'status_set',
      'comment_created',
      'comment_updated',
      'comment_newer',
    ]),
  },
  (t) => indexesOf(t, INDEXES.deliveries),
);
