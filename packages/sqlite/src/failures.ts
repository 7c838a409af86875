import { StoreDriverError } from '@covgate/core';
import { errorCode, type StoreComponent, type StoreLogger } from '@covgate/core/storage-kit';

export type { StoreComponent, StoreLogger };

/**
 * Thrown for infrastructure failures (disk full, file locked, corrupt database...). The details went to
 * the store's logger, so the API does not log it again; its message and `code` are those of
 * {@link StoreDriverError}: the component, the operation and the driver's code only.
 */
export class SqliteStoreError extends StoreDriverError {
  override readonly name = 'SqliteStoreError';
}

/** True for a primary key or unique index violation. */
export function isDuplicateKey(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
