import { StoreFailureError } from '@covgate/core';
import { errorCode, type StoreComponent, type StoreLogger } from '@covgate/core/storage-kit';

export type { StoreComponent, StoreLogger };

/**
 * Thrown for infrastructure failures (disk full, file locked, corrupt database...). Its
 * message names the component, the operation and SQLite's error code only: never a query, a
 * parameter or a path, so it is safe for any layer to show or log. The details went to the
 * store's logger, so the API does not log it again.
 */
export class SqliteStoreError extends StoreFailureError {
  /** SQLite's error code, such as `SQLITE_BUSY` or `SQLITE_FULL`. */
  readonly code: string;

  constructor(component: StoreComponent, operation: string, code: string) {
    super(`[${component}] ${operation} failed: ${code}`);
    this.name = 'SqliteStoreError';
    this.code = code;
  }
}

/** True for a primary key or unique index violation. */
export function isDuplicateKey(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
