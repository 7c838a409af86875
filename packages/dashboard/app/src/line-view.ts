import type { FileLines } from '@covgate/client';

/** What a line of a file is in a run: covered, missed, or no statement (not coverable). */
export type LineState = 'covered' | 'missed' | 'none';

/** One row of a file's line view. */
export interface LineRow {
  number: number;
  state: LineState;
  /** Whether the run's patch adds or changes the line. */
  changed: boolean;
  /** The line's source text, or null when the source is not shown. */
  text: string | null;
}

type Interval = readonly [number, number];

/** The API's `[first, last]` pairs (typed as arrays by the OpenAPI document) as intervals. */
function intervals(list: readonly (readonly number[])[]): readonly Interval[] {
  return list as unknown as readonly Interval[];
}

/** The last line any of the ranges names (0 for none). */
function lastLine(...lists: readonly (readonly Interval[] | null)[]): number {
  let last = 0;
  for (const list of lists) {
    const end = list?.at(-1)?.[1];
    if (end !== undefined && end > last) last = end;
  }
  return last;
}

/**
 * The rows of a file's line view: one per line of the source when it is shown, else up to the
 * last line the run names (covered, missed or changed), each with its state and whether the
 * patch changed it. A text whose last line ends in a line break has no empty row after it.
 */
export function lineRows(lines: FileLines, text: string | null): LineRow[] {
  const sourceLines = text === null ? null : text.replace(/\r?\n$/, '').split(/\r?\n/);
  const count = Math.max(
    sourceLines?.length ?? 0,
    lastLine(
      intervals(lines.covered_lines),
      intervals(lines.missed_lines),
      lines.patch_lines === null ? null : intervals(lines.patch_lines),
    ),
  );
  const state: LineState[] = new Array(count + 1).fill('none');
  const changed: boolean[] = new Array(count + 1).fill(false);
  for (const [first, last] of intervals(lines.covered_lines))
    for (let n = first; n <= last; n += 1) state[n] = 'covered';
  for (const [first, last] of intervals(lines.missed_lines))
    for (let n = first; n <= last; n += 1) state[n] = 'missed';
  for (const [first, last] of intervals(lines.patch_lines ?? []))
    for (let n = first; n <= last; n += 1) changed[n] = true;
  const rows: LineRow[] = [];
  for (let n = 1; n <= count; n += 1) {
    rows.push({
      number: n,
      state: state[n] as LineState,
      changed: changed[n] as boolean,
      text: sourceLines === null ? null : (sourceLines[n - 1] ?? ''),
    });
  }
  return rows;
}

/** The changed lines no test ran, as ranges `[first, last]`: where a reviewer looks first. */
export function missedChangedRanges(rows: readonly LineRow[]): Interval[] {
  const ranges: [number, number][] = [];
  for (const row of rows) {
    if (!row.changed || row.state !== 'missed') continue;
    const last = ranges.at(-1);
    if (last !== undefined && last[1] === row.number - 1) last[1] = row.number;
    else ranges.push([row.number, row.number]);
  }
  return ranges;
}

/** `12-14` or `20`. */
export function rangeText([first, last]: Interval): string {
  return first === last ? `${first}` : `${first}-${last}`;
}
