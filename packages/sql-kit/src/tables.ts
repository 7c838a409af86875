import type {
  DeliveryRecord,
  ExecutionRecord,
  InviteRecord,
  Membership,
  Organisation,
  OrganisationLink,
  OrganisationSettings,
  RepositoryLink,
  RepositorySettings,
  SessionRecord,
  SignInLinkRecord,
  TokenRecord,
  User,
} from '@covgate/core';
import type { SqlTable } from './query-db.js';

/** An `organisations` row: the organisation, its personal owner and its last plan change. */
export interface OrganisationRow extends Organisation {
  personalUserId: string | null;
  planChangedAt: Date | null;
}

/** A `memberships` row: where a membership came from is null, not absent. */
export interface MembershipRow extends Omit<Membership, 'source'> {
  source: NonNullable<Membership['source']> | null;
}

/** An `execution_files` row: a run's gzipped per-file list. */
export interface ExecutionFilesRow {
  executionId: string;
  orgId: string;
  data: Buffer;
}

/** An `execution_lines` row: a run's line data in its stored form (`encodeRunLines`). */
export interface ExecutionLinesRow {
  executionId: string;
  orgId: string;
  data: Buffer;
}

/** A `pruned_executions` row: when retention deleted a run's detail. */
export interface PrunedExecutionRow {
  executionId: string;
  orgId: string;
  prunedAt: Date;
}

/** A `commit_reports` row: the run that is a commit's report; `component` `''` for none. */
export interface CommitReportRow {
  orgId: string;
  repo: string;
  commit: string;
  component: string;
  executionId: string;
}

/** An `execution_parts` row: a part's upload of a commit's report. */
export interface ExecutionPartRow {
  executionId: string;
  name: string;
  orgId: string;
  receivedAt: Date;
  coverage: number;
  lines: Buffer;
}

/** An `execution_counters` row: a repository's run count and its newest run. */
export interface ExecutionCounterRow {
  orgId: string;
  repo: string;
  total: number;
  latestId: string | null;
  latestCreatedAt: Date | null;
}

/** An `idempotency_keys` row. */
export interface IdempotencyKeyRow {
  orgId: string;
  key: string;
  requestDigest: string;
  executionId: string;
  createdAt: Date;
  expiresAt: Date;
}

/** A `webhook_events` row: one claimed delivery of a provider's event. */
export interface WebhookEventRow {
  provider: string;
  eventId: string;
  claimedAt: Date;
}

/**
 * The tables the shared queries use, by the record each row reads as. Both stores' schemas
 * are passed as this, so a column missing or typed apart in either fails to compile.
 */
export interface Tables {
  organisations: SqlTable<OrganisationRow>;
  users: SqlTable<User>;
  tokens: SqlTable<TokenRecord>;
  sessions: SqlTable<SessionRecord>;
  signInLinks: SqlTable<SignInLinkRecord>;
  memberships: SqlTable<MembershipRow>;
  organisationLinks: SqlTable<OrganisationLink>;
  organisationSettings: SqlTable<OrganisationSettings>;
  invites: SqlTable<InviteRecord>;
  executions: SqlTable<ExecutionRecord>;
  executionFiles: SqlTable<ExecutionFilesRow>;
  executionLines: SqlTable<ExecutionLinesRow>;
  executionCounters: SqlTable<ExecutionCounterRow>;
  commitReports: SqlTable<CommitReportRow>;
  executionParts: SqlTable<ExecutionPartRow>;
  prunedExecutions: SqlTable<PrunedExecutionRow>;
  repositorySettings: SqlTable<RepositorySettings>;
  repositoryLinks: SqlTable<RepositoryLink>;
  idempotencyKeys: SqlTable<IdempotencyKeyRow>;
  webhookEvents: SqlTable<WebhookEventRow>;
  deliveries: SqlTable<DeliveryRecord>;
}
