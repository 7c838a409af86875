import { truncateToHundredths } from '../../numbers/truncate-decimal.js';
import { wholeSeconds } from '../../time/timestamp.js';
import type { EveryField } from '../every-field.js';
import type {
  ExecutionRecord,
  MembershipSource,
  Organisation,
  SessionRecord,
  TokenRecord,
} from '../store.js';

/** The fields of an {@link Organisation}, in order: the columns a store selects for one. */
export const ORGANISATION_FIELDS = ['id', 'slug', 'name', 'plan', 'createdAt'] as const;

const everyOrganisationField: EveryField<Organisation, typeof ORGANISATION_FIELDS> = true;
void everyOrganisationField;

/**
 * The named columns of an ORM table object, as the select map of a query: with drizzle,
 * `pickColumns(executions, EXECUTION_FIELDS)` selects exactly an {@link ExecutionRecord}.
 */
export function pickColumns<Table extends object, Field extends keyof Table>(
  table: Table,
  fields: readonly Field[],
): Pick<Table, Field> {
  const picked = {} as Pick<Table, Field>;
  for (const field of fields) picked[field] = table[field];
  return picked;
}

/** `wholeSeconds` of an instant that may be absent. */
export const wholeSecondOrNull = (at: Date | null): Date | null =>
  at === null ? null : wholeSeconds(at);

/** A token with its instants truncated to whole seconds, as every store keeps them. */
export const tokenTimestamps = (token: TokenRecord): TokenRecord => ({
  ...token,
  createdAt: wholeSeconds(token.createdAt),
  lastUsedAt: wholeSecondOrNull(token.lastUsedAt),
  gracePeriodEndsAt: wholeSecondOrNull(token.gracePeriodEndsAt),
});

/** A percentage cut to two decimals, never rounded up (the API already sends no more). */
const twoDecimals = (value: number): number => truncateToHundredths(value) / 100;

/**
 * The row of an execution as the SQL stores write it: instants in whole seconds, percentages
 * truncated to two decimals (a `DECIMAL(5,2)` column would round a third decimal).
 */
export const executionRow = (record: ExecutionRecord): ExecutionRecord => ({
  ...record,
  coverage: twoDecimals(record.coverage),
  createdAt: wholeSeconds(record.createdAt),
  baselineCoverage: record.baselineCoverage === null ? null : twoDecimals(record.baselineCoverage),
  baselineCreatedAt: wholeSecondOrNull(record.baselineCreatedAt),
  patchTarget: record.patchTarget === null ? null : twoDecimals(record.patchTarget),
});

/** A session with its instants truncated to whole seconds. */
export const sessionRow = (session: SessionRecord): SessionRecord => ({
  ...session,
  createdAt: wholeSeconds(session.createdAt),
  expiresAt: wholeSeconds(session.expiresAt),
});

/** The per-repository counter row of a repository's first execution record. */
export const firstCounterRow = (record: ExecutionRecord) => ({
  orgId: record.orgId,
  repo: record.repo,
  total: 1,
  latestId: record.id,
  latestCreatedAt: wholeSeconds(record.createdAt),
});

/**
 * A membership row as a `Membership`: a `source` column that is null (any way in but a
 * linked GitHub organisation) is left out, as the memory store leaves it out.
 */
export function membershipOf<T extends { source: MembershipSource | null }>(
  row: T,
): Omit<T, 'source'> & { source?: MembershipSource } {
  const { source, ...rest } = row;
  return source === null ? rest : { ...rest, source };
}
