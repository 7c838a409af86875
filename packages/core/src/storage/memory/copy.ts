import type { PartsState } from '../../executions/parts.js';
import type { ExecutionRecord } from '../store.js';

/**
 * Records go in and out as copies no caller can change the stored record through. Records hold
 * strings, numbers, booleans, null, dates and arrays of strings, which a spread plus fresh dates
 * and arrays covers at a fraction of `structuredClone`'s cost (the store is on the path of every
 * request). The spread matters: adding twenty-odd fields one by one to `{}` turns an object
 * into a hash table, and every later copy of it is several times slower.
 */
export function copy<T>(value: T): T {
  const out = { ...value } as Record<string, unknown>;
  // for...in over a plain record (no inherited enumerable keys): no entries array per copy.
  for (const key in out) {
    const field = out[key];
    if (typeof field !== 'object' || field === null) continue;
    if (field instanceof Date) out[key] = new Date(field.getTime());
    else if (Array.isArray(field)) out[key] = [...field];
    else out[key] = structuredClone(field);
  }
  return out as T;
}

/** {@link copy} of a stored value, or null when there is none. */
export function copyOrNull<T>(value: T | undefined): T | null {
  return value === undefined ? null : copy(value);
}

/** {@link copy} of an execution record, whose only fields that are not scalars are its dates. */
export function copyExecution(record: ExecutionRecord): ExecutionRecord {
  const { createdAt, baselineCreatedAt, parts } = record;
  return {
    ...record,
    createdAt: new Date(createdAt.getTime()),
    baselineCreatedAt: baselineCreatedAt && new Date(baselineCreatedAt.getTime()),
    parts: parts && copyParts(parts),
  };
}

/** A copy of a report's parts: its lists and its deadline fresh. */
function copyParts(parts: PartsState): PartsState {
  const expected =
    parts.expected === null || !('names' in parts.expected)
      ? parts.expected && { ...parts.expected }
      : { names: [...parts.expected.names] };
  return {
    ...parts,
    received: [...parts.received],
    expected,
    deadline: new Date(parts.deadline.getTime()),
  };
}

/** Compares two strings by code unit, as the SQL stores' binary collations do. */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
