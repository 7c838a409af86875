import type { FileCoverage } from '../reports/types.js';

const GO_BLOCK = /^(\d+)\.\d+,(\d+)\.\d+$/;

/**
 * The hit count of each coverable line of a file, or undefined when its report gave no line
 * detail (an Istanbul `coverage-summary.json`, an lcov record without `DA` lines):
 *
 * - lcov, Cobertura, Clover, JaCoCo and Istanbul `coverage-final.json`: the lines their
 *   parsers recorded (Istanbul: the start line of each statement, with the highest count of
 *   the statements starting there, as istanbul's own lcov writes `DA`);
 * - coverage.py JSON: its `missing_lines` (0) and `executed_lines` (1);
 * - Go: every line from a block's first to its last, with the lowest count of the blocks on
 *   that line (a line is covered only when every block on it ran, as gocover-cobertura turns
 *   a profile into lines); blocks of no statement are skipped.
 */
export function lineHits(file: FileCoverage): Map<number, number> | undefined {
  if (file.lines) return file.lines();
  if (!file.units) return undefined;
  const units = file.units();
  const lines = new Map<number, number>();
  for (const [unit, hits] of units) {
    if (typeof unit === 'number') {
      lines.set(unit, hits);
      continue;
    }
    const block = GO_BLOCK.exec(unit);
    if (!block || (file.weights?.get(unit) ?? 1) === 0) continue;
    const last = Number(block[2]);
    for (let line = Number(block[1]); line <= last; line++) {
      const seen = lines.get(line);
      if (seen === undefined || hits < seen) lines.set(line, hits);
    }
  }
  return lines;
}
