import type { ExecutionCursor } from '../../storage/store.js';

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
  return { createdAt: new Date(Number(match[1]) * 1000), id: match[2] as string };
}
