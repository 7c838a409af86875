import { formatTimestamp } from '../time/timestamp.js';
import {
  type CarriedPart,
  type CarriedPartJson,
  type Carryforward,
  carriedToJson,
  carries,
} from './carryforward.js';
import { PART_NAME } from './part-name.js';

export { PART_NAME } from './part-name.js';

// Parts of one commit's report (docs/decisions.md, "Parts of one commit and completeness"):
// which parts a commit's run has, which it expects, and whether it is complete.

/** Most names a list of expected parts may hold. */
export const MAX_EXPECTED_NAMES = 100;

/** Most parts a count of expected parts may ask for. */
export const MAX_EXPECTED_COUNT = 1000;

/** The minutes a report waits for its parts when the repository sets none. */
export const DEFAULT_PARTS_DEADLINE_MINUTES = 60;

/** The range of a repository's `parts_deadline_minutes`: a minute to a day. */
export const PARTS_DEADLINE_MINUTES = { min: 1, max: 1440 } as const;

/** The parts a commit's report waits for: by name, or how many. */
export type ExpectedParts = { names: string[] } | { count: number };

/** Where the expected parts came from. */
export type ExpectedSource = 'run' | 'repository' | 'base_branch';

/** The rules the newest part sent, kept to judge the report again when a part is carried. */
export interface PartsRules {
  /** Points of drop above which the report warns. */
  warnThreshold: number;
  /** Points of drop above which the report fails. */
  failThreshold: number;
  /** The floor on the report's coverage (percent, two decimals), or null. */
  projectTarget: number | null;
  /** The project rules report but never fail. */
  projectInformational: boolean;
  /** The patch rule reports but never fails. */
  patchInformational: boolean;
}

/** What a commit's run keeps about its parts. */
export interface PartsState {
  /** The names of the parts received, in code-unit order, each once. */
  received: string[];
  /**
   * The expected parts taken from an earlier commit's report when the report was judged
   * without them, in name order; a name is never both received and carried.
   */
  carried: CarriedPart[];
  /** Which missing parts the newest part said may be carried (its `carryforward`), or null. */
  carryforward: Carryforward | null;
  /** The newest part's rules; null in reports stored before they were kept. */
  rules: PartsRules | null;
  /** What the report waits for; null when nothing says (then only `finish` completes it). */
  expected: ExpectedParts | null;
  /** Where {@link expected} came from; null with it. */
  expectedSource: ExpectedSource | null;
  /** Whether `finish` closed the commit: no more parts are coming. */
  closed: boolean;
  /** When the report is judged incomplete if it still is. */
  deadline: Date;
  /** Counts the writes of the report: a store saves a merge only over the revision it read. */
  revision: number;
  /** Why the report failed without its verdict (`incomplete: missing integration`), or null. */
  reason: string | null;
  /**
   * The merged report's verdict as its lines stand (the delta and patch rules), which is the
   * outcome once the report is complete.
   */
  verdict: 'pass' | 'warn' | 'fail';
}

/** How far a report's parts are: complete, or what is missing. */
export interface PartsProgress {
  complete: boolean;
  /** Expected names not received (empty for a count, or when nothing is expected). */
  missing: string[];
  /** How many expected parts have not arrived (0 when nothing is expected). */
  missingCount: number;
}

/** Whether the report has every part it expects, and what it lacks. */
export function partsProgress(state: PartsState): PartsProgress {
  const { expected } = state;
  const received = presentNames(state);
  if (expected === null) return { complete: state.closed, missing: [], missingCount: 0 };
  if ('names' in expected) {
    const have = new Set(received);
    const missing = expected.names.filter((name) => !have.has(name));
    return { complete: missing.length === 0, missing, missingCount: missing.length };
  }
  const missingCount = Math.max(0, expected.count - received.length);
  return { complete: missingCount === 0, missing: [], missingCount };
}

/** The parts a report has, received or carried, in code-unit order. */
export function presentNames(state: PartsState): string[] {
  if (state.carried.length === 0) return state.received;
  return [...state.received, ...state.carried.map((carried) => carried.part)].sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
}

/**
 * The missing parts to carry forward into a report being judged at `now` without them: none
 * while it may still receive them (neither closed nor past its deadline), none for a count
 * (which names no part), else the expected names neither received nor carried that the
 * newest part's `carryforward`, else the repository's, lets be carried.
 */
export function partsToCarry(
  state: PartsState,
  now: Date,
  repository: Carryforward | null,
): string[] {
  const { expected } = state;
  if (expected === null || !('names' in expected)) return [];
  if (!state.closed && now.getTime() < state.deadline.getTime()) return [];
  const carryforward = state.carryforward ?? repository;
  return partsProgress(state).missing.filter((name) => carries(carryforward, name));
}

/** `unit, integration`: names as the texts list them. */
const listed = (names: readonly string[]) => names.join(', ');

/**
 * What the report lacks, as a reason and a status text say it: `missing integration`,
 * `missing 1 of 4 parts`, or `not finished` when nothing says which parts to expect.
 */
export function missingText(state: PartsState): string {
  const progress = partsProgress(state);
  if (state.expected === null) return 'not finished';
  if ('names' in state.expected) return `missing ${listed(progress.missing)}`;
  return `missing ${progress.missingCount} of ${state.expected.count} parts`;
}

/** The reason of a report judged without all its parts: `incomplete: missing integration`. */
export function incompleteReason(state: PartsState): string {
  return `incomplete: ${missingText(state)}`;
}

/**
 * A pending report as its statuses describe it: `2 of 3 parts: missing integration`,
 * `1 part, waiting for finish` when nothing says which parts to expect.
 */
export function pendingText(state: PartsState): string {
  const count = state.received.length;
  if (state.expected === null)
    return `${count} ${count === 1 ? 'part' : 'parts'}, waiting for finish`;
  const total =
    'names' in state.expected
      ? new Set([...state.expected.names, ...state.received]).size
      : Math.max(state.expected.count, count);
  return `${count} of ${total} parts: ${missingText(state)}`;
}

/** A report's parts as the API shows them (`parts` of an execution). */
export interface PartsJson {
  received: string[];
  carried: CarriedPartJson[];
  expected: string[] | number | null;
  expected_source: ExpectedSource | null;
  missing: string[];
  missing_count: number;
  complete: boolean;
  closed: boolean;
  deadline: string;
  reason: string | null;
}

/** {@link PartsState} on the wire. */
export function partsToJson(state: PartsState): PartsJson {
  const progress = partsProgress(state);
  const { expected } = state;
  return {
    received: state.received,
    carried: state.carried.map(carriedToJson),
    expected: expected === null ? null : 'names' in expected ? expected.names : expected.count,
    expected_source: state.expectedSource,
    missing: progress.missing,
    missing_count: progress.missingCount,
    complete: progress.complete,
    closed: state.closed,
    deadline: formatTimestamp(state.deadline),
    reason: state.reason,
  };
}

/** The stored form of a {@link PartsState}: JSON text, the deadline in epoch seconds. */
export function serialiseParts(state: PartsState): string {
  return JSON.stringify({
    received: state.received,
    carried: state.carried.map((carried) => ({
      ...carriedToJson(carried),
      received_at: Math.floor(carried.receivedAt.getTime() / 1000),
    })),
    carryforward: state.carryforward,
    rules: state.rules,
    expected: state.expected,
    expected_source: state.expectedSource,
    closed: state.closed,
    deadline: Math.floor(state.deadline.getTime() / 1000),
    revision: state.revision,
    reason: state.reason,
    verdict: state.verdict,
  });
}

/** A {@link PartsState} from {@link serialiseParts}'s text. */
export function parseParts(text: string): PartsState {
  const stored = JSON.parse(text) as {
    received: string[];
    carried?: (CarriedPartJson & { received_at: number })[];
    carryforward?: Carryforward | null;
    rules?: PartsRules | null;
    expected: ExpectedParts | null;
    expected_source: ExpectedSource | null;
    closed: boolean;
    deadline: number;
    revision: number;
    reason: string | null;
    verdict: 'pass' | 'warn' | 'fail';
  };
  return {
    received: stored.received,
    // Reports stored before carryforward have none of its fields.
    carried: (stored.carried ?? []).map((carried) => ({
      part: carried.part,
      fromCommit: carried.from_commit,
      fromRun: carried.from_run,
      receivedAt: new Date(carried.received_at * 1000),
      ageSeconds: carried.age_seconds,
    })),
    carryforward: stored.carryforward ?? null,
    rules: stored.rules ?? null,
    expected: stored.expected,
    expectedSource: stored.expected_source,
    closed: stored.closed,
    deadline: new Date(stored.deadline * 1000),
    revision: stored.revision,
    reason: stored.reason,
    verdict: stored.verdict,
  };
}

/**
 * The outcome of a report with these parts at `now`, and the state to store with it: the
 * merged verdict once complete; `fail` with the reason `incomplete: ...` when it is not and
 * `finish` closed it or its deadline has come; else `pending`.
 */
export function settleParts(
  state: PartsState,
  now: Date,
): { outcome: 'pass' | 'warn' | 'fail' | 'pending'; parts: PartsState } {
  if (partsProgress(state).complete) {
    return { outcome: state.verdict, parts: { ...state, reason: null } };
  }
  if (state.closed || now.getTime() >= state.deadline.getTime()) {
    return { outcome: 'fail', parts: { ...state, reason: incompleteReason(state) } };
  }
  return { outcome: 'pending', parts: { ...state, reason: null } };
}

/**
 * The parts of the base branch's complete report, as the names a report of the next commit
 * expects; null when it had none or was not complete.
 */
export function expectedFromBase(state: PartsState | null): ExpectedParts | null {
  if (state === null || state.received.length === 0) return null;
  if (!partsProgress(state).complete || state.reason !== null) return null;
  // A part the base carried was still one it expected.
  return { names: presentNames(state) };
}

/**
 * `--expect-parts` and `expect_parts` as text: `4` (a count) or `unit,integration` (names);
 * null when invalid.
 */
export function parseExpectedParts(value: unknown): ExpectedParts | null {
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 1 && value <= MAX_EXPECTED_COUNT
      ? { count: value }
      : null;
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_EXPECTED_NAMES) return null;
  if (!value.every((name) => typeof name === 'string' && PART_NAME.test(name))) return null;
  const names = [...new Set(value as string[])].sort();
  return names.length === value.length ? { names } : null;
}
