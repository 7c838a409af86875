import type { AnyColumn, Placeholder, SQL, Table } from 'drizzle-orm';

/**
 * A table of either dialect whose rows read as `Row`: drizzle's own table objects satisfy it,
 * so passing a dialect's schema where a {@link Tables} entry is expected checks that its
 * columns and their types match the record the shared queries return.
 */
export type SqlTable<Row> = Table & {
  readonly [Column in keyof Row]-?: AnyColumn;
} & { readonly $inferSelect: Row };

/** A WHERE condition; `undefined` adds none, as drizzle's `and` drops it. */
export type Condition = SQL | undefined;

/** What a column may be set to: its value, or an expression of the row. */
export type Changes<Row> = { [Column in keyof Row]?: Row[Column] | SQL };

/** A select both dialects build alike; awaiting it runs it. */
export interface SelectQuery<Row> extends PromiseLike<Row[]> {
  where(condition: Condition): SelectQuery<Row>;
  innerJoin(table: Table, on: Condition): SelectQuery<Row>;
  leftJoin(table: Table, on: Condition): SelectQuery<Row>;
  orderBy(...order: (AnyColumn | SQL)[]): SelectQuery<Row>;
  groupBy(...columns: (AnyColumn | SQL)[]): SelectQuery<Row>;
  limit(count: number | Placeholder): SelectQuery<Row>;
  prepare(): PreparedQuery<Row>;
}

/** A statement built once; each dialect runs it its own way ({@link SqlDialect.run}). */
export interface PreparedQuery<Row> {
  /** Never set: ties the statement to the rows it answers. */
  readonly rowType?: Row;
}

/** A write; what awaiting it gives differs by dialect ({@link SqlDialect.affected} reads it). */
export type WriteQuery = PromiseLike<unknown>;

/**
 * The part of drizzle's query builder that the libsql and mysql2 databases share, as the
 * shared queries use it. Drizzle types each dialect's builder on its own, so each store casts
 * its database to this once; the conformance suite runs every shared query on both.
 */
export interface QueryDb {
  select(): { from<Row>(table: SqlTable<Row>): SelectQuery<Row> };
  select<Row>(fields: Record<string, unknown>): { from(table: Table): SelectQuery<Row> };
  selectDistinct<Row>(fields: Record<string, unknown>): { from(table: Table): SelectQuery<Row> };
  insert<Row>(table: SqlTable<Row>): { values(values: Partial<Row> | Partial<Row>[]): WriteQuery };
  update<Row>(table: SqlTable<Row>): {
    set(changes: Changes<Row>): { where(condition: Condition): WriteQuery };
  };
  delete(table: Table): { where(condition: Condition): WriteQuery };
}
