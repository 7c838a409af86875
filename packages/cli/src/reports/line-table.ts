import { branchesFromUnits, mergeBranches, recordLineBranches, withBranches } from './branches.js';
import type { BranchCoverage, FileCoverage } from './types.js';
import { fileFromUnits, recordHits } from './units.js';

const BLOCK_BITS = 16;
const BLOCK_SIZE = 1 << BLOCK_BITS;
const BLOCK_MASK = BLOCK_SIZE - 1;
const MAX_LINE = 0xffffffff;

type Units = Map<number | string, number>;

/**
 * Collects the lines of a report's files as parsers stream through it, in a few large
 * columns instead of a map per file, so a report of hundreds of thousands of files costs
 * about 12 bytes per line. A file is a record of consecutive entries; its `units` map is
 * built only when asked for (when a merge needs it). A record whose line numbers are not
 * ascending integers (a repeat, a line listed twice) keeps a map of its own instead.
 * Records of the same path are united line by line, in the order first seen.
 */
export class LineTable {
  private readonly lineBlocks: Uint32Array[] = [];
  private readonly hitBlocks: Float64Array[] = [];
  private size = 0;
  private readonly records: FileCoverage[] = [];
  private readonly indexByPath = new Map<string, number>();
  private path: string | undefined;
  private from = 0;
  private last = -1;
  private covered = 0;
  private irregular: Units | undefined;
  /** The open record's branches, made when it has any (most lines have none). */
  private branches: Map<string, number> | undefined;

  /**
   * @param keepEmpty - whether a record without lines and without a summary is a file of no
   *   coverable lines (XML reports list such files) or is dropped (lcov)
   */
  constructor(private readonly keepEmpty: boolean) {}

  /** Starts a file's record; every `add` until `end` belongs to it. */
  begin(path: string): void {
    // A copy: the parsers' substrings would otherwise keep the whole piece of the file they
    // were cut from alive (V8 slices share their parent), i.e. the whole file in memory.
    this.path = ` ${path}`.slice(1);
    this.from = this.size;
    this.last = -1;
    this.covered = 0;
    this.irregular = undefined;
    this.branches = undefined;
  }

  /** Records `hits` for the branch `id` of the open record (the larger count of a repeat). */
  addBranch(id: string, hits: number): void {
    this.branches ??= new Map();
    recordHits(this.branches, id, hits);
  }

  /** Records a line's branches by their counts: see {@link recordLineBranches}. */
  addLineBranches(line: number, covered: number, total: number): void {
    this.branches ??= new Map();
    recordLineBranches(this.branches, line, covered, total);
  }

  /** The path of the open record, undefined between records. */
  get currentPath(): string | undefined {
    return this.path;
  }

  /** Records `hits` for line `line` of the open record. */
  add(line: number, hits: number): void {
    if (this.irregular) {
      recordHits(this.irregular, line, hits);
      return;
    }
    if (line <= this.last || line > MAX_LINE || !Number.isInteger(line)) {
      this.irregular = this.unitsOf(this.from, this.size);
      this.size = this.from;
      recordHits(this.irregular, line, hits);
      return;
    }
    const index = this.size++;
    const block = index >>> BLOCK_BITS;
    if (block === this.lineBlocks.length) {
      this.lineBlocks.push(new Uint32Array(BLOCK_SIZE));
      this.hitBlocks.push(new Float64Array(BLOCK_SIZE));
    }
    (this.lineBlocks[block] as Uint32Array)[index & BLOCK_MASK] = line;
    (this.hitBlocks[block] as Float64Array)[index & BLOCK_MASK] = hits;
    this.last = line;
    if (hits > 0) this.covered++;
  }

  /**
   * Ends the open record. A record without lines takes its counts from `summary` when given
   * (an lcov record with `LF`/`LH` and no `DA`), else it is kept empty or dropped as the
   * table was made to. `branchSummary` gives the record's branch counts when it named no
   * branch (an lcov record with `BRF`/`BRH` and no `BRDA`, Clover's file metrics).
   */
  end(
    summary?: { coverable: number; covered: number },
    branchSummary?: { coverable: number; covered: number },
  ): void {
    const path = this.path as string;
    this.path = undefined;
    const branches: BranchCoverage | undefined = this.branches
      ? branchesFromUnits(this.branches)
      : branchSummary;
    this.branches = undefined;
    let file: FileCoverage;
    if (this.irregular) {
      file = fileFromUnits(path, this.irregular);
    } else if (this.size > this.from) {
      const from = this.from;
      const to = this.size;
      file = {
        path,
        coverable: to - from,
        covered: this.covered,
        units: () => this.unitsOf(from, to),
      };
    } else if (summary) {
      file = { path, coverable: summary.coverable, covered: summary.covered };
    } else if (this.keepEmpty) {
      file = fileFromUnits(path, new Map());
    } else {
      return;
    }
    if (branches) file = { ...file, branches };
    const seen = this.indexByPath.get(path);
    if (seen === undefined) {
      this.indexByPath.set(path, this.records.length);
      this.records.push(file);
      return;
    }
    const previous = this.records[seen] as FileCoverage;
    const united = mergeBranches(previous.branches, file.branches);
    if (previous.units && file.units) {
      const lines = new Map(previous.units());
      for (const [unit, hits] of file.units()) recordHits(lines, unit, hits);
      this.records[seen] = withBranches(fileFromUnits(path, lines), united);
    } else {
      this.records[seen] = withBranches(file, united);
    }
  }

  /** The files recorded, each path once, in the order first seen. */
  files(): FileCoverage[] {
    return this.records;
  }

  private unitsOf(from: number, to: number): Units {
    const units: Units = new Map();
    for (let i = from; i < to; i++) {
      const block = i >>> BLOCK_BITS;
      recordHits(
        units,
        (this.lineBlocks[block] as Uint32Array)[i & BLOCK_MASK] as number,
        (this.hitBlocks[block] as Float64Array)[i & BLOCK_MASK] as number,
      );
    }
    return units;
  }
}
