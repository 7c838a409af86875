import { fileLinesJson } from '../executions/file-lines-json.js';
import { type Interval, lineCount, sharedIntervals } from '../executions/line-data-check.js';
import { decodeRunLines, type FileLines } from '../executions/run-lines.js';
import type { Store } from '../storage/store.js';

/**
 * Where the comment's "changed lines not covered" go: filled in when the comment is sent, from
 * the run's stored line data, so that the ingest never decodes it twice.
 */
export const MISSED_LINES_MARKER = '<!-- covgate:missed-lines -->';

/** Files the comment lists by name, most missed lines first; the rest are counted. */
export const MAX_MISSED_FILES_SHOWN = 10;

/** Ranges the comment lists per file; the rest are counted. */
export const MAX_MISSED_RANGES_SHOWN = 20;

/** A file's changed lines that are coverable and were not run. */
export interface MissedPatchFile {
  path: string;
  /** Ascending ranges `[first, last]`, adjacent ones joined. */
  ranges: Interval[];
  /** How many lines the ranges hold. */
  lines: number;
}

/**
 * The changed lines left uncovered, per file, most first (then by path), from a run's line
 * data; null when no file was sent with its patch's lines (no patch, or no line data).
 */
export function missedPatchLines(files: readonly FileLines[]): MissedPatchFile[] | null {
  const withPatch = files.filter((file) => file.patch !== null);
  if (withPatch.length === 0) return null;
  const missed: MissedPatchFile[] = [];
  for (const file of withPatch) {
    const json = fileLinesJson('', file);
    const ranges = joined(sharedIntervals(json.patch_lines ?? [], json.missed_lines));
    if (ranges.length > 0) missed.push({ path: file.path, ranges, lines: lineCount(ranges) });
  }
  return missed.sort((a, b) => b.lines - a.lines || (a.path < b.path ? -1 : 1));
}

/**
 * The missed changed lines of a run, read from its stored line data when its comment is sent;
 * null when the run is gone or was sent without the lines of a patch.
 */
export async function runMissedLines(
  store: Store,
  orgId: string,
  executionId: string,
): Promise<MissedPatchFile[] | null> {
  const stored = await store.findExecutionLines(orgId, executionId);
  return stored === null ? null : missedPatchLines(await decodeRunLines(stored));
}

/**
 * The comment's body with its {@link MISSED_LINES_MARKER} line replaced by the changed lines
 * left uncovered (a bounded list of ranges per file, each file linked to its lines on the run
 * page when `runUrl` is known), a line saying every one is covered, or nothing when the run has
 * no line data for its patch (`missed` null): then the comment is the one sent before line data.
 */
export function withMissedLines(
  body: string,
  missed: readonly MissedPatchFile[] | null,
  runUrl: string | null,
): string {
  const lines = body.split('\n');
  const at = lines.indexOf(MISSED_LINES_MARKER);
  if (at === -1) return body;
  lines.splice(at, 1, ...missedLinesSection(missed, runUrl));
  return lines.join('\n');
}

function missedLinesSection(
  missed: readonly MissedPatchFile[] | null,
  runUrl: string | null,
): string[] {
  if (missed === null) return [];
  if (missed.length === 0) return ['Every changed line that can run is covered.', ''];
  const total = missed.reduce((sum, file) => sum + file.lines, 0);
  const shown = missed.slice(0, MAX_MISSED_FILES_SHOWN);
  const rest = missed.slice(MAX_MISSED_FILES_SHOWN);
  const restLines = rest.reduce((sum, file) => sum + file.lines, 0);
  return [
    `**Changed lines not covered** (${count(total, 'line')} in ${count(missed.length, 'file')})`,
    '',
    ...shown.map((file) => `- ${fileLink(file.path, runUrl)}: ${rangesText(file.ranges)}`),
    ...(rest.length > 0
      ? [`- …and ${count(rest.length, 'more file')} (${count(restLines, 'line')}).`]
      : []),
    '',
  ];
}

/** `12-14, 20`, at most {@link MAX_MISSED_RANGES_SHOWN} ranges, then `and 3 more ranges`. */
function rangesText(ranges: readonly Interval[]): string {
  const text = ranges
    .slice(0, MAX_MISSED_RANGES_SHOWN)
    .map(([first, last]) => (first === last ? `${first}` : `${first}-${last}`))
    .join(', ');
  const rest = ranges.length - MAX_MISSED_RANGES_SHOWN;
  return rest > 0 ? `${text} and ${count(rest, 'more range')}` : text;
}

/** The path as code, linked to the file's lines on the run page when its URL is known. */
function fileLink(path: string, runUrl: string | null): string {
  const code = `\`${path.replaceAll('`', "'")}\``;
  if (runUrl === null) return code;
  // Parentheses end a Markdown link's destination: encoded like the rest.
  const encoded = encodeURIComponent(path).replaceAll('(', '%28').replaceAll(')', '%29');
  return `[${code}](${runUrl}/files/${encoded})`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Ascending disjoint intervals with neighbours (`[1, 2]`, `[3, 4]`) joined. */
function joined(intervals: readonly Interval[]): Interval[] {
  const out: [number, number][] = [];
  for (const [start, end] of intervals) {
    const last = out.at(-1);
    if (last !== undefined && start === last[1] + 1) last[1] = end;
    else out.push([start, end]);
  }
  return out;
}
