import { describe, expect, it } from 'vitest';
import { patchBranches } from '../src/patch/patch-coverage.js';
import { branchesFromUnits } from '../src/reports/branches.js';
import type { FileCoverage } from '../src/reports/types.js';

const file = (path: string, keys: Record<string, number>): FileCoverage => ({
  path,
  covered: 0,
  coverable: 0,
  branches: branchesFromUnits(new Map(Object.entries(keys))),
});
const changed = (path: string, start: number, count: number) =>
  new Map([[path, [{ start, count }]]]);
const count = (files: FileCoverage[], lines: ReturnType<typeof changed>) =>
  patchBranches(lines, new Map(files.map((f) => [f.path, f])), files);

describe('patchBranches', () => {
  it('counts the branches on changed lines by the line each format names', () => {
    // lcov BRDA, Istanbul (branch start line), a per-line format, coverage.py arcs.
    const lcov = file('a.js', { '3:0:0': 1, '3:0:1': 0, '9:1:0': 0 });
    const istanbul = file('b.js', { '4:b0:0': 2, '4:b0:1': 0, '12:b1:0': 1 });
    const perLine = file('c.java', { '5#0': 1, '5#1': 1, '6#0': 0 });
    const arcs = file('d.py', { '7>8': 1, '7>-1': 0, '9>10': 1 });
    expect(count([lcov], changed('a.js', 2, 2))).toEqual({ covered: 1, total: 2 });
    expect(count([istanbul], changed('b.js', 4, 1))).toEqual({ covered: 1, total: 2 });
    expect(count([perLine], changed('c.java', 5, 2))).toEqual({ covered: 2, total: 3 });
    expect(count([arcs], changed('d.py', 7, 1))).toEqual({ covered: 1, total: 2 });
    // Changed lines without branches: 0 of 0, a figure, not "no data".
    expect(count([lcov], changed('a.js', 20, 3))).toEqual({ covered: 0, total: 0 });
  });

  it('is null without branch data, and for branches counted without their lines', () => {
    const lines: FileCoverage = { path: 'a.go', covered: 1, coverable: 2 };
    expect(count([lines], changed('a.go', 1, 2))).toBeNull();
    const clover: FileCoverage = { ...lines, path: 'e.js', branches: { covered: 1, coverable: 2 } };
    expect(count([clover], changed('e.js', 1, 2))).toBeNull();
    // An Istanbul file without a branch map names no line.
    expect(count([file('f.js', { 'b0:0': 1 })], changed('f.js', 1, 2))).toBeNull();
  });
});
