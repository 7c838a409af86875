import { EXECUTION_FIELDS, type ExecutionRecord } from '../storage/records/executions.js';
import { executionToJson } from './execution-json.js';

/** Records whose JSON text one API keeps by default (about 300 bytes each). */
export const DEFAULT_EXECUTION_JSON_MEMO_ENTRIES = 10_000;

/** A record's fields in {@link EXECUTION_FIELDS} order (its times as numbers), and its text. */
interface MemoEntry {
  fields: unknown[];
  text: string;
}

/** A field's value as `===` tells a change of it: a date by its instant. */
function comparable(value: unknown): unknown {
  return value instanceof Date ? value.getTime() : value;
}

/**
 * Every field of the record, so that a field added to the record is compared without a line
 * here ({@link EXECUTION_FIELDS} fails to compile without it). A field whose value is an
 * object other than a date never compares equal: such a record is serialised anew, never
 * answered with stale text.
 */
function fieldsOf(record: ExecutionRecord): unknown[] {
  const fields = new Array<unknown>(EXECUTION_FIELDS.length);
  for (let index = 0; index < EXECUTION_FIELDS.length; index++) {
    fields[index] = comparable(record[EXECUTION_FIELDS[index]!]);
  }
  return fields;
}

function sameRecord(entry: MemoEntry, record: ExecutionRecord): boolean {
  for (let index = 0; index < EXECUTION_FIELDS.length; index++) {
    if (entry.fields[index] !== comparable(record[EXECUTION_FIELDS[index]!])) return false;
  }
  return true;
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
    this.#entries.set(record.id, { fields: fieldsOf(record), text });
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
