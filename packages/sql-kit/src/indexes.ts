import type { Tables } from './tables.js';

/** The record a {@link Tables} entry reads as. */
type RowOf<Table> = Table extends { readonly $inferSelect: infer Row } ? Row : never;

/** A secondary index: its columns in order, which of them sort descending, and uniqueness. */
export interface IndexSpec<Row> {
  readonly on: readonly (keyof Row & string)[];
  readonly descending?: readonly (keyof Row & string)[];
  readonly unique?: true;
}

/** The secondary indexes of a table, by name. */
export type IndexSpecs<Row> = Readonly<Record<string, IndexSpec<Row>>>;

/**
 * The secondary indexes both stores create, by table and name: each dialect's schema builds
 * them from here with its own index builder, so the two cannot drift apart. An index only
 * one dialect can state (a partial index, an index on a generated column) stays in its schema.
 * This module is read by drizzle-kit when it generates migrations: it imports nothing at run
 * time.
 */
export const INDEXES = {
  organisations: {
    organisations_slug_uq: { on: ['slug'], unique: true },
    organisations_personal_user_uq: { on: ['personalUserId'], unique: true },
  },
  users: {
    users_provider_external_id_uq: { on: ['provider', 'externalId'], unique: true },
  },
  tokens: {
    tokens_org_created_idx: { on: ['orgId', 'createdAt', 'id'] },
  },
  sessions: {
    sessions_token_hash_uq: { on: ['tokenHash'], unique: true },
  },
  memberships: {
    // The organisations of a user (the session's list, the organisation switch).
    memberships_user_idx: { on: ['userId'] },
  },
  organisationLinks: {
    // One link per host organisation; also what a sign-in through the host lists.
    organisation_links_host_organisation_uq: { on: ['host', 'organisation'], unique: true },
  },
  invites: {
    invites_token_hash_uq: { on: ['tokenHash'], unique: true },
    invites_org_created_idx: { on: ['orgId', 'createdAt', 'id'] },
  },
  signInLinks: {
    sign_in_links_token_hash_uq: { on: ['tokenHash'], unique: true },
  },
  executions: {
    // Newest-first top-N of one repository: an index range scan, whatever the repo's size.
    executions_repo_recent_idx: {
      on: ['orgId', 'repo', 'createdAt', 'id'],
      descending: ['createdAt', 'id'],
    },
    // Latest record of a component's branch (badge).
    executions_component_branch_recent_idx: {
      on: ['orgId', 'repo', 'component', 'branch', 'createdAt', 'id'],
    },
    // The base branch's run at a merge base (baseline of a run that sends `base_commit`).
    executions_commit_idx: { on: ['orgId', 'repo', 'commit'] },
    // Newest-first pages of a repository's runs filtered by branch, by outcome, by component
    // (`GET /v1/executions?branch=&outcome=&component=`), and their counts.
    executions_branch_recent_idx: { on: ['orgId', 'repo', 'branch', 'createdAt', 'id'] },
    executions_outcome_recent_idx: { on: ['orgId', 'repo', 'outcome', 'createdAt', 'id'] },
    executions_component_recent_idx: { on: ['orgId', 'repo', 'component', 'createdAt', 'id'] },
  },
  idempotencyKeys: {
    // The sweep of expired keys reads only the dead ones.
    idempotency_keys_expires_idx: { on: ['expiresAt'] },
  },
  deliveries: {
    // The claim: pending deliveries by due time (and the gauges' counts by state).
    deliveries_claim_idx: { on: ['state', 'nextAttemptAt', 'id'] },
    // A repository's latest failures (dashboard).
    deliveries_repo_state_idx: { on: ['orgId', 'repo', 'state', 'updatedAt'] },
    // A run's deliveries.
    deliveries_execution_idx: { on: ['orgId', 'executionId'] },
  },
} as const satisfies { [Name in keyof Tables]?: IndexSpecs<RowOf<Tables[Name]>> };

/** What a dialect's schema gives {@link buildIndexes}: drizzle's index builders, its descending form. */
export interface IndexBuilders<Column, Index> {
  index(name: string): { on(...columns: [Column, ...Column[]]): Index };
  uniqueIndex(name: string): { on(...columns: [Column, ...Column[]]): Index };
  descending(column: Column): Column;
}

/** The indexes of `specs` over a table's `columns` (by property name), built the dialect's way. */
export function buildIndexes<Column, Index>(
  columns: Readonly<Record<string, Column>>,
  specs: Readonly<Record<string, IndexSpec<Record<string, unknown>>>>,
  builders: IndexBuilders<Column, Index>,
): Index[] {
  return Object.entries(specs).map(([name, spec]) => {
    const on = spec.on.map((property) => {
      const column = columns[property];
      if (column === undefined) throw new Error(`index ${name}: no column ${property}`);
      return spec.descending?.includes(property) ? builders.descending(column) : column;
    }) as [Column, ...Column[]];
    return (spec.unique ? builders.uniqueIndex : builders.index)(name).on(...on);
  });
}
