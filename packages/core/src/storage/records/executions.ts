import type { PartsState } from '../../executions/parts.js';
import type { EveryField } from '../every-field.js';
import type { DeliveryKind, NewDelivery } from './outbox.js';
import type { CodeHostKind } from './repository-links.js';

// Runs (executions on the wire), their lists and the idempotency keys of their ingest.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/**
 * Result of a coverage-gate run; `pending` only for a commit's report that still waits for
 * parts (see {@link ExecutionRecord.parts}); `skipped` only for a commit recorded as having
 * nothing to measure (see {@link ExecutionRecord.skipReason}).
 */
export type Outcome = 'pass' | 'warn' | 'fail' | 'pending' | 'skipped';

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
  /**
   * Coverage percentage with two decimals, 0..100. A `skipped` record measured nothing: it
   * holds its base's figure (the baseline's, else 0), which no reader takes as the commit's
   * (the API shows `coverage: null`; baselines, badges, headlines and series leave it out).
   */
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
  /**
   * The run's absolute floor on its coverage (percent): its own, or its organisation's minimum
   * when higher; null when there was neither.
   */
  projectTarget: number | null;
  /** Where the project target came from; null without one. */
  projectTargetSource: ProjectTargetSource | null;
  /** sha256 (hex) of the policy file (covgate.yml) the run was judged by; null when none was sent. */
  policyDigest: string | null;
  /** The commit the policy file was read at; null when none was sent (or read outside git). */
  policyCommit: string | null;
  /**
   * The policy file the run's change edits (`covgate.yml`, `.covgate.yml`), whose new text
   * applies only after merge; null when the change edits none or the client did not say.
   */
  policyEdited: PolicyFileName | null;
  /**
   * The sections of the pull request's comment the run's policy asks for (`comment:` of
   * covgate.yml); null for every section (the default), empty for no comment at all.
   */
  commentSections: CommentSection[] | null;
  /** Branches taken at least once (issue 43); null when the run sent no branch counts. */
  branchesCovered: number | null;
  /** Branches the run's reports list; null when the run sent no branch counts. */
  branchesTotal: number | null;
  /** The run's floor on its branch percent (the project branch rule); null when it sent none. */
  branchTarget: number | null;
  /** Branches of the patch's changed lines taken at least once; null when the run sent none. */
  patchBranchesCovered: number | null;
  /** Branches of the patch's changed lines; null when the run sent none. */
  patchBranchesTotal: number | null;
  /** The target of the patch branch rule (percent); null when the run sent none. */
  patchBranchTarget: number | null;
  /**
   * For a commit's report merged from parts (runs sent with `part`): the parts received and
   * expected, and whether they are complete; null for a run sent whole.
   */
  parts: PartsState | null;
  /**
   * Who posted the run when it was a CI identity through an OIDC ID token
   * (`oidc:github:acme/api@refs/heads/main`); null when an API token or a session posted it.
   */
  postedBy: string | null;
  /**
   * Why the commit has nothing to measure (`docs only`), for a record with outcome `skipped`
   * (`covgate skip --reason`); null for every other record.
   */
  skipReason: string | null;
  /**
   * What was decided, when the run was recorded, about its feedback to the code host: the
   * repository's link then, and for each status and the comment whether it was queued or why
   * not. Null for a run recorded before covgate kept them. What became of each queued one is
   * the outbox's (`listRunDeliveries`).
   */
  feedback: FeedbackPlan | null;
}

/**
 * Why a status or the comment of a run was not queued for its code host:
 * - `not_linked`: the repository had no link to a code host;
 * - `no_commit`, `short_commit`: a status needs the run's full commit id (40 or 64 hex);
 * - `no_patch`: `covgate/patch` reports a patch, and the run sent none;
 * - `no_pull_request`: the comment needs the run's pull request;
 * - `waiting_for_parts`: the commit's report waits for its parts; the comment follows it;
 * - `skipped_run`: a skipped commit keeps the pull request's last measured comment;
 * - `comment_disabled`: the run's policy says `comment: false`.
 */
export type FeedbackSkipReason =
  | 'not_linked'
  | 'no_commit'
  | 'short_commit'
  | 'no_patch'
  | 'no_pull_request'
  | 'waiting_for_parts'
  | 'skipped_run'
  | 'comment_disabled';

/** One status or the comment of a run, as decided when the run was recorded. */
export interface FeedbackItemPlan {
  kind: DeliveryKind;
  /** The status's context (`covgate/project (api)`); null for the comment. */
  context: string | null;
  /** Null when it was queued in the outbox; else why not. */
  skipped: FeedbackSkipReason | null;
}

/** A run's feedback decisions (see {@link ExecutionRecord.feedback}). */
export interface FeedbackPlan {
  /** The repository's link when the run was recorded; null when it had none. */
  link: { host: CodeHostKind; repository: string } | null;
  /** The `covgate/project` status, the `covgate/patch` status and the comment, in that order. */
  items: FeedbackItemPlan[];
}

/** How a run's baseline was chosen (see {@link ExecutionRecord.baselineSelection}). */
export type BaselineSelection = 'base_commit' | 'latest';

/**
 * Where a run's patch target came from: the run itself, the repository's default, covgate's, or
 * the organisation's minimum (when it was higher than the others).
 */
export type PatchTargetSource = 'run' | 'repository' | 'default' | 'organisation';

/** Where a run's project target came from: the run itself, or the organisation's minimum. */
export type ProjectTargetSource = 'run' | 'organisation';

/** A section of the pull request's comment: the verdict table, the missed lines, the files that lost most. */
export type CommentSection = 'verdict' | 'patch' | 'files';

/** The names a repository's policy file may have. */
export type PolicyFileName = 'covgate.yml' | '.covgate.yml';

/**
 * The rule that decided a run's outcome: the delta thresholds, the patch target, the project
 * target, the project branch rule or the patch branch rule.
 */
export type DecidingRule = 'delta' | 'patch' | 'target' | 'branches' | 'patch_branches';

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
  /** True: only the runs with a coverage figure (every outcome but `skipped`). */
  measured?: true;
}

/**
 * What a history chart draws of a run (`GET /v1/executions/series`): its figures without the
 * rest of the record, so that 1 000 of them cost a store little to read and map.
 */
export type ExecutionPoint = Pick<
  ExecutionRecord,
  'createdAt' | 'coverage' | 'outcome' | 'branch' | 'delta' | 'baseBranch' | 'baselineCoverage'
>;

/** The fields of an `ExecutionPoint`, in the order a store selects them. */
export const EXECUTION_POINT_FIELDS = [
  'createdAt',
  'coverage',
  'outcome',
  'branch',
  'delta',
  'baseBranch',
  'baselineCoverage',
] as const satisfies readonly (keyof ExecutionPoint)[];

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

/**
 * The fields of an {@link ExecutionRecord}, in order: the columns a store selects for one,
 * and what the JSON memo compares to know a remembered text is still the record's own.
 */
export const EXECUTION_FIELDS = [
  'id',
  'orgId',
  'repo',
  'branch',
  'outcome',
  'delta',
  'coverage',
  'commit',
  'createdAt',
  'baseBranch',
  'baselineId',
  'baselineCoverage',
  'baselineCommit',
  'baselineCreatedAt',
  'baselineSelection',
  'component',
  'pullRequest',
  'baseCommit',
  'patchCovered',
  'patchCoverable',
  'patchTarget',
  'patchTargetSource',
  'decidedBy',
  'fileCount',
  'policyDigest',
  'policyCommit',
  'policyEdited',
  'commentSections',
  'projectTarget',
  'projectTargetSource',
  'branchesCovered',
  'branchesTotal',
  'branchTarget',
  'patchBranchesCovered',
  'patchBranchesTotal',
  'patchBranchTarget',
  'parts',
  'postedBy',
  'skipReason',
  'feedback',
] as const;

const everyExecutionField: EveryField<ExecutionRecord, typeof EXECUTION_FIELDS> = true;
void everyExecutionField;

/** One repository of an organisation as its per-repository counter knows it. */
export interface RepositorySummary {
  repo: string;
  /** Number of execution records of the repository (the counter, never a scan). */
  total: number;
  /** The newest record of the repository (`createdAt` desc, then `id` desc). */
  latest: ExecutionRecord;
}

/** Execution records with an O(1) per-repository total. */
export interface ExecutionStore {
  /**
   * Inserts the record and, in the same transaction, increments the per-(org, repo) counter
   * and moves its latest-record pointer when the record is newer than the current one, and
   * enqueues `deliveries` (state `pending`, due at the record's `createdAt`), and stores the
   * run's per-file list (`files`) and line data (`lines`) when given; throws
   * {@link StoreConflictError} (and writes nothing) when the id exists.
   */
  insertExecution(
    record: ExecutionRecord,
    files?: Uint8Array | null,
    deliveries?: readonly NewDelivery[],
    lines?: Uint8Array | null,
  ): Promise<void>;
  /** The organisation's record with this id, or null (another organisation's is null too). */
  findExecution(orgId: string, id: string): Promise<ExecutionRecord | null>;
  /**
   * The per-file list stored with the organisation's record `id`, as the bytes it was given
   * ({@link insertExecution}'s `files`), or null when the record has none or is unknown.
   */
  findExecutionFiles(orgId: string, id: string): Promise<Uint8Array | null>;
  /**
   * The line data stored with the organisation's record `id`, as the bytes it was given
   * ({@link insertExecution}'s `lines`), or null when the record has none or is unknown.
   */
  findExecutionLines(orgId: string, id: string): Promise<Uint8Array | null>;
  /** Newest first: `createdAt` desc, then `id` desc; at most `limit` records. */
  listExecutions(query: ListExecutionsQuery): Promise<ExecutionRecord[]>;
  /**
   * The same records as {@link ExecutionStore.listExecutions} for the same query, each reduced
   * to its {@link ExecutionPoint} fields: a store reads only those columns.
   */
  listExecutionPoints(query: ListExecutionsQuery): Promise<ExecutionPoint[]>;
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
   * Latest record of any outcome but `skipped` of the repo's `component` on `branch` whose
   * `commit` is exactly `commit`: the baseline of a run that names its merge base.
   */
  findBaselineAtCommit(
    orgId: string,
    repo: string,
    branch: string,
    commit: string,
    component?: string | null,
  ): Promise<ExecutionRecord | null>;
  /**
   * Latest record of the repo's `component` on `branch`, of any outcome but `skipped`: what
   * the badge shows.
   */
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
    lines?: Uint8Array | null,
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
