import type { ExecutionRecord } from '../storage/store.js';
import { executionToJson } from './execution-json.js';

/** Records whose JSON text one API keeps by default (about 300 bytes each). */
export const DEFAULT_EXECUTION_JSON_MEMO_ENTRIES = 10_000;

/** The record's fields its text shows (its times as numbers), and the text. */
type MemoEntry = Pick<
  ExecutionRecord,
  | 'repo'
  | 'branch'
  | 'outcome'
  | 'delta'
  | 'coverage'
  | 'commit'
  | 'baseBranch'
  | 'baselineId'
  | 'baselineCoverage'
  | 'baselineCommit'
  | 'baselineSelection'
  | 'component'
  | 'pullRequest'
  | 'baseCommit'
  | 'patchCovered'
  | 'patchCoverable'
  | 'patchTarget'
  | 'patchTargetSource'
  | 'decidedBy'
  | 'fileCount'
> & { createdAtMs: number; baselineCreatedAtMs: number | null; text: string };

function sameRecord(entry: MemoEntry, record: ExecutionRecord): boolean {
  return (
    entry.createdAtMs === record.createdAt.getTime() &&
    entry.repo === record.repo &&
    entry.branch === record.branch &&
    entry.outcome === record.outcome &&
    entry.delta === record.delta &&
    entry.coverage === record.coverage &&
    entry.commit === record.commit &&
    entry.baseBranch === record.baseBranch &&
    entry.baselineId === record.baselineId &&
    entry.baselineCoverage === record.baselineCoverage &&
    entry.baselineCommit === record.baselineCommit &&
    entry.baselineSelection === record.baselineSelection &&
    entry.component === record.component &&
    entry.pullRequest === record.pullRequest &&
    entry.baseCommit === record.baseCommit &&
    entry.patchCovered === record.patchCovered &&
    entry.patchCoverable === record.patchCoverable &&
    entry.patchTarget === record.patchTarget &&
    entry.patchTargetSource === record.patchTargetSource &&
    entry.decidedBy === record.decidedBy &&
    entry.fileCount === record.fileCount &&
    entry.baselineCreatedAtMs === (record.baselineCreatedAt?.getTime() ?? null)
  );
}

/**
 * The JSON text of execution records, remembered by id so that a page listed again is
 * joined from text already made instead of serialised anew. Every hit is checked against the
 * record's fields, so the text is always the record's own, whatever the store returns; when
 * full, the entry remembered first goes.
 */
export class ExecutionJsonMemo {
  readonly #entries = new Map<string, MemoEntry>();

  constructor(readonly maxEntries: number = DEFAULT_EXECUTION_JSON_MEMO_ENTRIES) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError('maxEntries must be a positive integer');
    }
  }

  /** Number of records remembered. */
  get size(): number {
    return this.#entries.size;
  }

  /** `JSON.stringify(executionToJson(record))`. */
  textOf(record: ExecutionRecord): string {
    const remembered = this.#entries.get(record.id);
    if (remembered !== undefined && sameRecord(remembered, record)) return remembered.text;
    const text = JSON.stringify(executionToJson(record));
    if (remembered === undefined && this.#entries.size >= this.maxEntries) {
      const first = this.#entries.keys().next();
      if (first.done !== true) this.#entries.delete(first.value);
    }
    this.#entries.set(record.id, {
      repo: record.repo,
      branch: record.branch,
      outcome: record.outcome,
      delta: record.delta,
      coverage: record.coverage,
      commit: record.commit,
      baseBranch: record.baseBranch,
      baselineId: record.baselineId,
      baselineCoverage: record.baselineCoverage,
      baselineCommit: record.baselineCommit,
      baselineSelection: record.baselineSelection,
      component: record.component,
      pullRequest: record.pullRequest,
      baseCommit: record.baseCommit,
      patchCovered: record.patchCovered,
      patchCoverable: record.patchCoverable,
      patchTarget: record.patchTarget,
      patchTargetSource: record.patchTargetSource,
      decidedBy: record.decidedBy,
      fileCount: record.fileCount,
      createdAtMs: record.createdAt.getTime(),
      baselineCreatedAtMs: record.baselineCreatedAt?.getTime() ?? null,
      text,
    });
    return text;
  }

  /** The JSON text of an array of records, as `JSON.stringify(records.map(executionToJson))`. */
  arrayText(records: readonly ExecutionRecord[]): string {
    let text = '[';
    for (let index = 0; index < records.length; index++) {
      if (index > 0) text += ',';
      text += this.textOf(records[index]!);
    }
    return `${text}]`;
  }
}
