import type { ExecutionFilter, ExecutionRecord, Organisation } from '@covgate/core';
import {
  EXECUTION_FIELDS,
  EXECUTION_POINT_FIELDS,
  ORGANISATION_FIELDS,
  pickColumns,
} from '@covgate/core/storage-kit';
import { desc, eq, isNull, ne, type SQL } from 'drizzle-orm';
import type { QueryDb } from './query-db.js';
import type { Tables } from './tables.js';

/** `pick`'s answer for `tables`, worked out on the first call only: queries ask per call. */
function oncePerSchema<Columns>(pick: (tables: Tables) => Columns): (tables: Tables) => Columns {
  const picked = new WeakMap<Tables, Columns>();
  return (tables) => {
    const known = picked.get(tables);
    if (known !== undefined) return known;
    const columns = pick(tables);
    picked.set(tables, columns);
    return columns;
  };
}

/** The columns of an `Organisation` (the personal link and plan time stay inside). */
export const organisationColumns = oncePerSchema(({ organisations }) =>
  pickColumns(organisations, ORGANISATION_FIELDS),
);

/** The columns of an `ExecutionRecord`. */
export const executionColumns = oncePerSchema(({ executions }) =>
  pickColumns(executions, EXECUTION_FIELDS),
);

/** The columns of an `ExecutionPoint`: what a history chart draws of a run. */
export const executionPointColumns = oncePerSchema(({ executions }) =>
  pickColumns(executions, EXECUTION_POINT_FIELDS),
);

/** Selects organisations as `Organisation` records. */
export const selectOrganisations = (db: QueryDb, tables: Tables) =>
  db.select<Organisation>(organisationColumns(tables)).from(tables.organisations);

/** Selects runs as `ExecutionRecord`s. */
export const selectExecutions = (db: QueryDb, tables: Tables) =>
  db.select<ExecutionRecord>(executionColumns(tables)).from(tables.executions);

/** The conditions of an execution filter; a field left out adds none. */
export function filterConditions(
  { executions }: Tables,
  filter: ExecutionFilter,
): (SQL | undefined)[] {
  const { branch, outcome, component, measured } = filter;
  return [
    measured === undefined ? undefined : ne(executions.outcome, 'skipped'),
    branch === undefined ? undefined : eq(executions.branch, branch),
    outcome === undefined ? undefined : eq(executions.outcome, outcome),
    component === undefined
      ? undefined
      : component === null
        ? isNull(executions.component)
        : eq(executions.component, component),
  ];
}

/** Runs newest first, the id breaking ties of one instant. */
export const newestFirst = ({ executions }: Tables) => [
  desc(executions.createdAt),
  desc(executions.id),
];
