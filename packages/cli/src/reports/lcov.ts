import { type FileCoverage, MalformedReport, type ParsedReport } from './types.js';
import { fileFromUnits, recordHits } from './units.js';

const CR = 13;
const COMMA = 44;
const ZERO = 48;
const NINE = 57;

/** One `SF:` record: its `DA:` lines are `lines[from..to)` and `hits[from..to)` of the report. */
interface LcovRecord {
  path: string;
  from: number;
  to: number;
  /** False once a line number repeats or goes backwards: the record then needs a map. */
  ascending: boolean;
  lf?: number;
  lh?: number;
}

/**
 * Parses an lcov tracefile (`geninfo`'s format, written by c8, nyc, Jest, gcov's lcov and
 * most other tools). Line coverage as `genhtml` computes it: the lines listed by `DA:` are the
 * coverable lines, those with a non-zero count are covered. A record without `DA:` lines
 * contributes its `LF:`/`LH:` totals. Records of the same `SF:` are merged line by line.
 *
 * Written for tracefiles of hundreds of thousands of files: one pass over the text with
 * character codes, no per-line strings for `DA:` entries, and line maps only for files that
 * need merging.
 */
export function parseLcov(text: string): ParsedReport {
  const records: LcovRecord[] = [];
  // One pair of arrays for the whole report: no two arrays per file to allocate and collect.
  const lines: number[] = [];
  const hits: number[] = [];
  let current: LcovRecord | undefined;
  let lineNo = 0;
  let start = 0;
  const end = text.length;
  while (start < end) {
    let stop = text.indexOf('\n', start);
    if (stop === -1) stop = end;
    lineNo++;
    let last = stop;
    if (last > start && text.charCodeAt(last - 1) === CR) last--;
    if (text.startsWith('DA:', start)) {
      if (current === undefined) {
        throw new MalformedReport(`line ${lineNo}: DA outside a record (no SF: before it)`);
      }
      // DA:<line>,<count>[,<checksum>]
      let i = start + 3;
      let number = 0;
      let c = text.charCodeAt(i);
      const lineStart = i;
      while (c >= ZERO && c <= NINE) {
        number = number * 10 + (c - ZERO);
        c = text.charCodeAt(++i);
      }
      let count = 0;
      const hitsStart = i + 1;
      if (i === lineStart || c !== COMMA) {
        throw new MalformedReport(`line ${lineNo}: not a DA:<line>,<count> entry`);
      }
      c = text.charCodeAt(++i);
      while (i < last && c >= ZERO && c <= NINE) {
        count = count * 10 + (c - ZERO);
        c = text.charCodeAt(++i);
      }
      if (i === hitsStart || (i < last && c !== COMMA)) {
        // Not plain digits (a negative or exponent count some tools write): read it as a number.
        const field = text.slice(hitsStart, last).split(',')[0] ?? '';
        count = Number(field);
        if (field === '' || Number.isNaN(count)) {
          throw new MalformedReport(`line ${lineNo}: not a DA:<line>,<count> entry`);
        }
      }
      if (current.to > current.from && number <= (lines[current.to - 1] as number))
        current.ascending = false;
      lines.push(number);
      hits.push(count);
      current.to++;
    } else if (text.startsWith('SF:', start)) {
      if (current !== undefined)
        throw new MalformedReport(`line ${lineNo}: SF: before end_of_record`);
      current = {
        path: text.slice(start + 3, last),
        from: lines.length,
        to: lines.length,
        ascending: true,
      };
    } else if (text.startsWith('end_of_record', start) && last - start === 13) {
      if (current === undefined)
        throw new MalformedReport(`line ${lineNo}: end_of_record without SF:`);
      records.push(current);
      current = undefined;
    } else if (text.startsWith('LF:', start)) {
      if (current) current.lf = Number(text.slice(start + 3, last));
    } else if (text.startsWith('LH:', start)) {
      if (current) current.lh = Number(text.slice(start + 3, last));
    } else if (last > start && !/^[A-Z]+:/.test(text.slice(start, Math.min(last, start + 12)))) {
      throw new MalformedReport(`line ${lineNo}: not an lcov entry`);
    }
    start = stop + 1;
  }
  if (current !== undefined)
    throw new MalformedReport(`record of ${current.path} has no end_of_record`);
  return { format: 'lcov', files: filesOf(records, lines, hits) };
}

function filesOf(records: LcovRecord[], lines: number[], hits: number[]): FileCoverage[] {
  const files = new Map<string, FileCoverage>();
  for (const record of records) {
    const file = fileOf(record, lines, hits);
    if (file === undefined) continue;
    const seen = files.get(record.path);
    files.set(record.path, seen?.units && file.units ? united(seen, file) : file);
  }
  return [...files.values()];
}

function fileOf(record: LcovRecord, lines: number[], hits: number[]): FileCoverage | undefined {
  const { path, from, to } = record;
  if (to === from) {
    if (record.lf === undefined || Number.isNaN(record.lf)) return undefined;
    return { path, coverable: record.lf, covered: Math.min(record.lh ?? 0, record.lf) };
  }
  const units = () => {
    const map = new Map<number | string, number>();
    for (let i = from; i < to; i++) recordHits(map, lines[i] as number, hits[i] as number);
    return map;
  };
  if (!record.ascending) return fileFromUnits(path, units());
  let covered = 0;
  for (let i = from; i < to; i++) if ((hits[i] as number) > 0) covered++;
  return { path, coverable: to - from, covered, units };
}

function united(a: FileCoverage, b: FileCoverage): FileCoverage {
  const map = new Map((a.units as () => Map<number | string, number>)());
  for (const [unit, hits] of (b.units as () => Map<number | string, number>)())
    recordHits(map, unit, hits);
  return fileFromUnits(a.path, map);
}
