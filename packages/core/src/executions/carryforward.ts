import { PART_NAME } from './part-name.js';

// Carryforward (docs/decisions.md, "Carryforward of a missing part"): a part missing from a
// commit's report when it is judged may be taken from an earlier commit's report, and is then
// named wherever the report is shown.

/** Which parts may be carried forward: every part, or these names (sorted, each once). */
export type Carryforward = { all: true } | { names: string[] };

/** Most names a carryforward list may hold (as many as an expectation). */
export const MAX_CARRYFORWARD_NAMES = 100;

/** A part of a commit's report taken from an earlier commit's report. */
export interface CarriedPart {
  /** The part's name. */
  part: string;
  /** The commit whose report the part's upload was first sent to. */
  fromCommit: string;
  /** That commit's run (the report the upload belongs to). */
  fromRun: string;
  /** When the carried upload was first received. */
  receivedAt: Date;
  /** The upload's age when it was carried: the judging time minus `receivedAt`. */
  ageSeconds: number;
}

/** {@link CarriedPart} on the wire. */
export interface CarriedPartJson {
  part: string;
  from_commit: string;
  from_run: string;
  age_seconds: number;
}

/**
 * `carryforward` (a run's) and `carryforward_parts` (a repository's) as sent: `true` for every
 * part, or a non-empty list of part names; null when invalid.
 */
export function parseCarryforward(value: unknown): Carryforward | null {
  if (value === true) return { all: true };
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_CARRYFORWARD_NAMES) {
    return null;
  }
  if (!value.every((name) => typeof name === 'string' && PART_NAME.test(name))) return null;
  const names = [...new Set(value as string[])].sort();
  return names.length === value.length ? { names } : null;
}

/** A {@link Carryforward} as the API shows it: `true` or the names. */
export function carryforwardJson(carryforward: Carryforward): true | string[] {
  return 'all' in carryforward ? true : carryforward.names;
}

/** Whether `carryforward` lets the part `name` be carried. */
export function carries(carryforward: Carryforward | null, name: string): boolean {
  if (carryforward === null) return false;
  return 'all' in carryforward || carryforward.names.includes(name);
}

/** A carried part on the wire. */
export function carriedToJson(carried: CarriedPart): CarriedPartJson {
  return {
    part: carried.part,
    from_commit: carried.fromCommit,
    from_run: carried.fromRun,
    age_seconds: carried.ageSeconds,
  };
}

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;

/**
 * An age as the texts say it: `less than a minute old`, `5 minutes old`, `3 hours old`,
 * `2 days old` (whole units, rounded down).
 */
export function ageText(seconds: number): string {
  if (seconds < 60) return 'less than a minute old';
  if (seconds < 3600) return `${plural(Math.floor(seconds / 60), 'minute')} old`;
  if (seconds < 86_400) return `${plural(Math.floor(seconds / 3600), 'hour')} old`;
  return `${plural(Math.floor(seconds / 86_400), 'day')} old`;
}

/**
 * The carried parts as the statuses, the comment and the run page name them:
 * `integration carried from abc1234, 2 days old`; parts from one commit of one age share a
 * clause (`e2e, integration carried from ...`), others follow after `; `. Empty for none.
 */
export function carriedText(
  carried: readonly Pick<CarriedPart, 'part' | 'fromCommit' | 'ageSeconds'>[],
): string {
  const clauses = new Map<string, string[]>();
  for (const part of carried) {
    const source = `from ${part.fromCommit.slice(0, 7)}, ${ageText(part.ageSeconds)}`;
    clauses.set(source, [...(clauses.get(source) ?? []), part.part]);
  }
  return [...clauses].map(([source, names]) => `${names.join(', ')} carried ${source}`).join('; ');
}
