import type {
  EXECUTION_FIELDS,
  ExecutionRecord,
  FeedbackPlan,
} from '../storage/records/executions.js';
import { executionToJson } from './execution-json.js';
import { type PartsState, serialiseParts } from './parts.js';

/** Records whose JSON text one API keeps by default (about 300 bytes each). */
export const DEFAULT_EXECUTION_JSON_MEMO_ENTRIES = 10_000;

/** A copy of the record the text was made of, and the text. */
interface MemoEntry {
  record: ExecutionRecord;
  text: string;
}

/** A copy no caller can change: the record's own values, its dates anew. */
function snapshot(record: ExecutionRecord): ExecutionRecord {
  const copy = { ...record } as Record<string, unknown>;
  for (const key in copy) {
    const value = copy[key];
    if (value instanceof Date) copy[key] = new Date(value.getTime());
  }
  return copy as unknown as ExecutionRecord;
}

/**
 * Whether the record is the one remembered, field by field: every field of
 * {@link EXECUTION_FIELDS} but the id (the memo's key). Written out rather than looped over
 * that list, which made a page of 10 cost about 15 times as much (a keyed read per field);
 * `execution-json-memo.test.ts` changes each field of the list in turn and fails on one
 * left out here.
 */
function sameRecord(remembered: ExecutionRecord, record: ExecutionRecord): boolean {
  return (
    remembered.createdAt.getTime() === record.createdAt.getTime() &&
    remembered.orgId === record.orgId &&
    remembered.repo === record.repo &&
    remembered.branch === record.branch &&
    remembered.outcome === record.outcome &&
    remembered.delta === record.delta &&
    remembered.coverage === record.coverage &&
    remembered.commit === record.commit &&
    remembered.baseBranch === record.baseBranch &&
    remembered.baselineId === record.baselineId &&
    remembered.baselineCoverage === record.baselineCoverage &&
    remembered.baselineCommit === record.baselineCommit &&
    (remembered.baselineCreatedAt?.getTime() ?? null) ===
      (record.baselineCreatedAt?.getTime() ?? null) &&
    remembered.baselineSelection === record.baselineSelection &&
    remembered.component === record.component &&
    remembered.pullRequest === record.pullRequest &&
    remembered.baseCommit === record.baseCommit &&
    remembered.patchCovered === record.patchCovered &&
    remembered.patchCoverable === record.patchCoverable &&
    remembered.patchTarget === record.patchTarget &&
    remembered.patchTargetSource === record.patchTargetSource &&
    remembered.decidedBy === record.decidedBy &&
    remembered.fileCount === record.fileCount &&
    remembered.projectTarget === record.projectTarget &&
    remembered.projectTargetSource === record.projectTargetSource &&
    remembered.policyDigest === record.policyDigest &&
    remembered.policyCommit === record.policyCommit &&
    remembered.policyEdited === record.policyEdited &&
    remembered.commentSections?.join() === record.commentSections?.join() &&
    remembered.branchesCovered === record.branchesCovered &&
    remembered.branchesTotal === record.branchesTotal &&
    sameParts(remembered.parts, record.parts) &&
    remembered.postedBy === record.postedBy &&
    remembered.skipReason === record.skipReason &&
    sameFeedback(remembered.feedback, record.feedback)
  );
}

/** Two runs' feedback decisions alike: stored once, so equal text is the same decisions. */
function sameFeedback(a: FeedbackPlan | null, b: FeedbackPlan | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Two commit reports' parts alike: the common case (both null) costs one comparison. */
function sameParts(a: PartsState | null, b: PartsState | null): boolean {
  if (a === null || b === null) return a === b;
  return serialiseParts(a) === serialiseParts(b);
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
    if (remembered !== undefined && sameRecord(remembered.record, record)) return remembered.text;
    const text = JSON.stringify(executionToJson(record));
    if (remembered === undefined && this.#entries.size >= this.maxEntries) {
      const first = this.#entries.keys().next();
      if (first.done !== true) this.#entries.delete(first.value);
    }
    this.#entries.set(record.id, { record: snapshot(record), text });
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
