/** One entry of a drizzle-kit migrations journal (`meta/_journal.json`). */
export interface JournalEntry {
  /** `0008_invites`: the migration's file name without `.sql`; its version name. */
  tag: string;
  /** Milliseconds drizzle-kit stamped it with; the migrator stores it as `created_at`. */
  when: number;
}

/** Where a database's schema stands against the migrations a release ships. */
export interface MigrationStatus {
  /** The last migration applied (its tag), or null for a database without covgate's schema. */
  current: string | null;
  /** The last migration this release ships. */
  latest: string;
  /** Shipped migrations not applied yet, oldest first: what `migrate` would apply. */
  pending: string[];
  /** True when the database holds a migration this release does not ship (a newer release's). */
  ahead: boolean;
}

/** What one `migrate` call did: the schema's version before and after. */
export interface MigrationResult {
  from: string | null;
  to: string;
  applied: string[];
}

/** Options of a SQL store's migration functions (`migrate`, `migrationStatus`...). */
export interface MigrationOptions {
  /**
   * The folder of the shipped migrations (default: the store package's own `drizzle` folder,
   * its `MIGRATIONS_FOLDER`). A bundle that inlines the store's code moves `import.meta.url`
   * away from it: it passes the installed package's `drizzle` folder instead.
   */
  migrationsFolder?: string;
}

/**
 * The status of a database whose newest applied migration carries `lastAppliedAt` (the largest
 * `created_at` of drizzle's `__drizzle_migrations`, null when it has none), against the shipped
 * `journal`. It follows drizzle's migrator, which applies every migration stamped later than the
 * last applied one.
 */
export function migrationStatusOf(
  journal: readonly JournalEntry[],
  lastAppliedAt: number | null,
): MigrationStatus {
  const entries = [...journal].sort((a, b) => a.when - b.when);
  const last = entries.at(-1);
  if (last === undefined) throw new Error('the migrations journal is empty');
  if (lastAppliedAt === null) {
    return { current: null, latest: last.tag, pending: entries.map((e) => e.tag), ahead: false };
  }
  const applied = entries.filter((entry) => entry.when <= lastAppliedAt);
  return {
    current: applied.at(-1)?.tag ?? null,
    latest: last.tag,
    pending: entries.filter((entry) => entry.when > lastAppliedAt).map((entry) => entry.tag),
    ahead: lastAppliedAt > last.when,
  };
}

/**
 * One line saying what a migration run did: `database schema migrated from 0007_baselines to
 * 0008_invites (1 migration)`, `... from none to ...` for a new database, or `database schema
 * up to date at 0008_invites`.
 */
export function migrationLine(result: MigrationResult): string {
  if (result.applied.length === 0) return `database schema up to date at ${result.to}`;
  const count = result.applied.length;
  return `database schema migrated from ${result.from ?? 'none'} to ${result.to} (${count} migration${count === 1 ? '' : 's'})`;
}
