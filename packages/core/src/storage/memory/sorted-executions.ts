import { compareOldestFirst } from '../record-order.js';
import type { ExecutionCursor, ExecutionRecord } from '../store.js';

/**
 * Execution records of one scope (a repository, or a branch of it) kept sorted oldest first,
 * so the newest record is at the end: a record arriving in time order is appended after a
 * binary search, and a page is a walk backwards from a binary-searched position.
 */
export class SortedExecutions {
  readonly #records: ExecutionRecord[] = [];

  /** Inserts a record at its sorted position (the caller owns uniqueness of ids). */
  insert(record: ExecutionRecord): void {
    const index = this.#firstIndexNotOlderThan(record);
    this.#records.splice(index, 0, record);
  }

  /**
   * Newest first, at most `limit` records strictly older than `after` (all records when
   * `after` is absent), keeping those that satisfy `accept`.
   */
  newestFirst(
    limit: number,
    after?: ExecutionCursor,
    accept: (record: ExecutionRecord) => boolean = () => true,
  ): ExecutionRecord[] {
    const page: ExecutionRecord[] = [];
    const start = after ? this.#firstIndexNotOlderThan(after) - 1 : this.#records.length - 1;
    for (let index = start; index >= 0 && page.length < limit; index -= 1) {
      const record = this.#records[index]!;
      if (accept(record)) page.push(record);
    }
    return page;
  }

  /** The oldest record that satisfies `accept`, or undefined. */
  oldest(accept: (record: ExecutionRecord) => boolean): ExecutionRecord | undefined {
    return this.#records.find(accept);
  }

  /** Every record, oldest first. */
  values(): Iterable<ExecutionRecord> {
    return this.#records.values();
  }

  /** How many records satisfy `accept`. */
  count(accept: (record: ExecutionRecord) => boolean): number {
    let matching = 0;
    for (const record of this.#records) if (accept(record)) matching += 1;
    return matching;
  }

  #firstIndexNotOlderThan(position: ExecutionCursor): number {
    let low = 0;
    let high = this.#records.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareOldestFirst(this.#records[middle]!, position) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
