import { LineTable } from './line-table.js';
import { MalformedReport, type ParsedReport } from './types.js';

const CR = 13;
const COMMA = 44;
const ZERO = 48;
const NINE = 57;
const BOM = 0xfeff;
/** Longer than any lcov entry (a path, a mangled function name): not an lcov file. */
const MAX_LINE_LENGTH = 16 * 1024 * 1024;

/**
 * Reads an lcov tracefile (`geninfo`'s format, written by c8, nyc, Jest, gcov's lcov and most
 * other tools) piece by piece, so its size is not bounded by the longest string Node.js can
 * hold. Line coverage as `genhtml` computes it: the lines listed by `DA:` are the coverable
 * lines, those with a non-zero count are covered. A record without `DA:` lines contributes its
 * `LF:`/`LH:` totals. Branch coverage as `lcov --summary` counts it: each `BRDA:` entry is a
 * branch, taken when its count is a number > 0 (`-`: its block never ran); a record without
 * `BRDA:` entries contributes its `BRF:`/`BRH:` totals. Records of the same `SF:` are merged
 * line by line and branch by branch.
 *
 * Written for tracefiles of millions of lines: character codes, no string per `DA:` entry,
 * and the lines kept in a {@link LineTable}.
 */
export class LcovReader {
  private readonly table = new LineTable(false);
  /** The start of a line the previous piece ended in. */
  private carry = '';
  private started = false;
  private lineNo = 0;
  private lf: number | undefined;
  private lh: number | undefined;
  private brf: number | undefined;
  private brh: number | undefined;

  /** Reads the next piece of the tracefile. */
  write(chunk: string): void {
    let start = 0;
    if (!this.started && chunk.length > 0) {
      this.started = true;
      if (chunk.charCodeAt(0) === BOM) start = 1;
    }
    if (this.carry !== '') {
      const stop = chunk.indexOf('\n', start);
      if (stop === -1) {
        this.keep(chunk.slice(start));
        return;
      }
      const joined = this.carry + chunk.slice(start, stop);
      this.carry = '';
      this.line(joined, 0, joined.length);
      start = stop + 1;
    }
    const end = chunk.length;
    while (start < end) {
      const stop = chunk.indexOf('\n', start);
      if (stop === -1) {
        this.keep(chunk.slice(start));
        return;
      }
      this.line(chunk, start, stop);
      start = stop + 1;
    }
  }

  /** Ends the tracefile and returns its files. */
  end(): ParsedReport {
    if (this.carry !== '') {
      const last = this.carry;
      this.carry = '';
      this.line(last, 0, last.length);
    }
    if (this.table.currentPath !== undefined) {
      throw new MalformedReport(`record of ${this.table.currentPath} has no end_of_record`);
    }
    return { format: 'lcov', files: this.table.files() };
  }

  private keep(rest: string): void {
    this.carry += rest;
    if (this.carry.length > MAX_LINE_LENGTH) {
      throw new MalformedReport(`line ${this.lineNo + 1}: longer than 16 MiB, not an lcov entry`);
    }
  }

  /**
   * `BRDA:<line>,[e]<block>,<branch>,<taken>`: one branch, taken `<taken>` times (`-` when
   * its block never ran), named by its line, block and branch so that two reports unite.
   */
  private branch(fields: string, lineNo: number): void {
    // lcov 2 may write an expression as the branch, commas included: the count is the last field.
    const parts = fields.split(',');
    const [line, block] = parts;
    const taken = parts.at(-1);
    const hits = taken === '-' ? 0 : Number(taken);
    if (!line || !/^\d+$/.test(line) || parts.length < 4 || taken === '' || Number.isNaN(hits)) {
      throw new MalformedReport(`line ${lineNo}: not a BRDA:<line>,<block>,<branch>,<taken> entry`);
    }
    this.table.addBranch(`${line}:${block}:${parts.slice(2, -1).join(',')}`, hits);
  }

  /** One line: `text[start..stop)`, without its `\n`. */
  private line(text: string, start: number, stop: number): void {
    const lineNo = ++this.lineNo;
    let last = stop;
    if (last > start && text.charCodeAt(last - 1) === CR) last--;
    const table = this.table;
    if (text.startsWith('DA:', start)) {
      if (table.currentPath === undefined) {
        throw new MalformedReport(`line ${lineNo}: DA outside a record (no SF: before it)`);
      }
      // DA:<line>,<count>[,<checksum>]
      let i = start + 3;
      let number = 0;
      let c = text.charCodeAt(i);
      const lineStart = i;
      while (i < last && c >= ZERO && c <= NINE) {
        number = number * 10 + (c - ZERO);
        c = text.charCodeAt(++i);
      }
      if (i === lineStart || i >= last || c !== COMMA) {
        throw new MalformedReport(`line ${lineNo}: not a DA:<line>,<count> entry`);
      }
      let count = 0;
      const hitsStart = ++i;
      c = text.charCodeAt(i);
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
      table.add(number, count);
    } else if (text.startsWith('SF:', start)) {
      if (table.currentPath !== undefined) {
        throw new MalformedReport(`line ${lineNo}: SF: before end_of_record`);
      }
      table.begin(text.slice(start + 3, last));
      this.lf = undefined;
      this.lh = undefined;
      this.brf = undefined;
      this.brh = undefined;
    } else if (text.startsWith('end_of_record', start) && last - start === 13) {
      if (table.currentPath === undefined) {
        throw new MalformedReport(`line ${lineNo}: end_of_record without SF:`);
      }
      table.end(totals(this.lf, this.lh), totals(this.brf, this.brh));
    } else if (text.startsWith('BRDA:', start)) {
      if (table.currentPath === undefined) {
        throw new MalformedReport(`line ${lineNo}: BRDA outside a record (no SF: before it)`);
      }
      this.branch(text.slice(start + 5, last), lineNo);
    } else if (text.startsWith('BRF:', start)) {
      if (table.currentPath !== undefined) this.brf = Number(text.slice(start + 4, last));
    } else if (text.startsWith('BRH:', start)) {
      if (table.currentPath !== undefined) this.brh = Number(text.slice(start + 4, last));
    } else if (text.startsWith('LF:', start)) {
      if (table.currentPath !== undefined) this.lf = Number(text.slice(start + 3, last));
    } else if (text.startsWith('LH:', start)) {
      if (table.currentPath !== undefined) this.lh = Number(text.slice(start + 3, last));
    } else if (last > start && !/^[A-Z]+:/.test(text.slice(start, Math.min(last, start + 12)))) {
      throw new MalformedReport(`line ${lineNo}: not an lcov entry`);
    }
  }
}

/** A record's `LF`/`LH` (or `BRF`/`BRH`) totals, undefined when the first is missing. */
function totals(
  found: number | undefined,
  hit: number | undefined,
): { coverable: number; covered: number } | undefined {
  if (found === undefined || Number.isNaN(found)) return undefined;
  return { coverable: found, covered: Math.min(hit ?? 0, found) };
}

/** Parses the text of an lcov tracefile; see {@link LcovReader}. */
export function parseLcov(text: string): ParsedReport {
  const reader = new LcovReader();
  reader.write(text);
  return reader.end();
}
