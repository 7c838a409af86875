import type { ExecutionCursor } from '../storage/store.js';

/** 9999-12-31T23:59:59Z */
const LAST_REPRESENTABLE_SECOND = 253_402_300_799;
const CURSOR_SHAPE = /^(\d{1,15}):(exe_[0-9a-z]{26})$/;

/** Encodes the position after the last record of a page as an opaque string. */
export function encodeExecutionCursor(cursor: ExecutionCursor): string {
  const seconds = Math.floor(cursor.createdAt.getTime() / 1000);
  return Buffer.from(`${seconds}:${cursor.id}`, 'utf8').toString('base64url');
}

/** Decodes a cursor made by {@link encodeExecutionCursor}; null for anything else. */
export function decodeExecutionCursor(value: string): ExecutionCursor | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) return null;
  const match = CURSOR_SHAPE.exec(Buffer.from(value, 'base64url').toString('utf8'));
  if (!match) return null;
  const seconds = Number(match[1]);
  // Stores hold years 0000-9999 only; anything later is not a position in any list.
  if (seconds > LAST_REPRESENTABLE_SECOND) return null;
  return { createdAt: new Date(seconds * 1000), id: match[2] as string };
}
