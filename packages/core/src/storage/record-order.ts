/** What the stores order records by: creation instant, then id as a tie-breaker. */
export interface RecordPosition {
  createdAt: Date;
  id: string;
}

/**
 * Orders two records oldest first: `createdAt` ascending, then `id` ascending (code-unit
 * comparison, never locale-aware, matching a binary collation in SQL). Negative when `a` is
 * older, positive when newer, 0 for the same position. Reverse the arguments for newest first.
 */
export function compareOldestFirst(a: RecordPosition, b: RecordPosition): number {
  const byTime = a.createdAt.getTime() - b.createdAt.getTime();
  if (byTime !== 0) return byTime;
  if (a.id === b.id) return 0;
  return a.id < b.id ? -1 : 1;
}
