import type { ExecutionFilter } from '@covgate/core';
import { EXECUTION_FIELDS, ORGANISATION_FIELDS, pickColumns } from '@covgate/core/storage-kit';
import { desc, eq, isNull, type SQL } from 'drizzle-orm';
import { executions, organisations } from '../schema.js';

/** The columns of an `Organisation` (the personal link and plan time stay inside). */
export const organisationColumns = pickColumns(organisations, ORGANISATION_FIELDS);

/** The columns of an `ExecutionRecord`. */
export const executionColumns = pickColumns(executions, EXECUTION_FIELDS);

/** The conditions of an execution filter; a field left out adds none. */
export function filterConditions(filter: ExecutionFilter): (SQL | undefined)[] {
  const { branch, outcome, component } = filter;
  return [
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
export const newestFirst = [desc(executions.createdAt), desc(executions.id)];
