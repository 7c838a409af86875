import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { coberturaXml } from '../src/export/cobertura-xml.js';
import { lineHits } from '../src/patch/line-hits.js';
import { branchesFromUnits, branchLine } from '../src/reports/branches.js';
import { parseCobertura } from '../src/reports/cobertura.js';
import { readReport } from '../src/reports/read-report.js';
import type { FileCoverage } from '../src/reports/types.js';
import { fileFromUnits } from '../src/reports/units.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const META = { version: '0.1.0', timestamp: 1_795_000_000_000 };

/**
 * Each file's hits per line, and taken/total branches per line, as plain sorted pairs; the
 * branches of lines with no hits of their own are left out, as Cobertura cannot hold them.
 */
function linesOf(files: readonly FileCoverage[]) {
  return Object.fromEntries(
    files
      .filter((f) => lineHits(f) !== undefined)
      .map((f) => {
        const hits = lineHits(f) as Map<number, number>;
        const branches = new Map<number, [number, number]>();
        for (const [key, count] of f.branches?.units?.() ?? []) {
          const line = branchLine(key) as number;
          if (!hits.has(line)) continue;
          const [taken, total] = branches.get(line) ?? [0, 0];
          branches.set(line, [taken + (count > 0 ? 1 : 0), total + 1]);
        }
        return [
          f.path,
          {
            lines: [...hits].sort((a, b) => a[0] - b[0]),
            branches: [...branches].sort((a, b) => a[0] - b[0]),
          },
        ];
      }),
  );
}

describe('coberturaXml', () => {
  it('writes repository-relative classes under one <source>., folders as packages, branches per line', () => {
    const withBranches = fileFromUnits(
      'src/a&b "x".ts',
      new Map<number | string, number>([
        [1, 3],
        [2, 0],
        [4, 1],
      ]),
    );
    withBranches.branches = branchesFromUnits(
      new Map([
        ['4:0:0', 1],
        ['4:0:1', 0],
      ]),
    );
    const files: FileCoverage[] = [
      fileFromUnits('main.go', new Map([['3.10,5.2', 2]]), new Map([['3.10,5.2', 2]])),
      withBranches,
      { path: 'summary-only.js', covered: 1, coverable: 2 },
      fileFromUnits('/elsewhere/lib.ts', new Map([[1, 1]])),
    ];
    const written = coberturaXml(files, META);
    expect(written.xml).toBe(`<?xml version="1.0" encoding="UTF-8"?>
<coverage line-rate="0.8333" branch-rate="0.5" lines-covered="5" lines-valid="6" branches-covered="1" branches-valid="2" complexity="0" version="0.1.0" timestamp="1795000000000">
\t<sources>
\t\t<source>.</source>
\t</sources>
\t<packages>
\t\t<package name="." line-rate="1" branch-rate="1" complexity="0">
\t\t\t<classes>
\t\t\t\t<class name="main.go" filename="main.go" line-rate="1" branch-rate="1" complexity="0">
\t\t\t\t\t<methods/>
\t\t\t\t\t<lines>
\t\t\t\t\t\t<line number="3" hits="2"/>
\t\t\t\t\t\t<line number="4" hits="2"/>
\t\t\t\t\t\t<line number="5" hits="2"/>
\t\t\t\t\t</lines>
\t\t\t\t</class>
\t\t\t</classes>
\t\t</package>
\t\t<package name="src" line-rate="0.6667" branch-rate="0.5" complexity="0">
\t\t\t<classes>
\t\t\t\t<class name="a&amp;b &quot;x&quot;.ts" filename="src/a&amp;b &quot;x&quot;.ts" line-rate="0.6667" branch-rate="0.5" complexity="0">
\t\t\t\t\t<methods/>
\t\t\t\t\t<lines>
\t\t\t\t\t\t<line number="1" hits="3"/>
\t\t\t\t\t\t<line number="2" hits="0"/>
\t\t\t\t\t\t<line number="4" hits="1" branch="true" condition-coverage="50% (1/2)"/>
\t\t\t\t\t</lines>
\t\t\t\t</class>
\t\t\t</classes>
\t\t</package>
\t</packages>
</coverage>
`);
    expect(written.files).toBe(2);
    expect(written.lines).toEqual({ covered: 5, valid: 6 });
    expect(written.leftOut).toEqual({
      countsOnly: ['summary-only.js'],
      outside: ['/elsewhere/lib.ts'],
    });
  });

  it('an empty run is a valid document with no package', () => {
    const written = coberturaXml([], META);
    expect(parseCobertura(written.xml)).toEqual({
      format: 'cobertura',
      files: [],
      sources: ['.'],
    });
  });

  it.each([
    ['c8-style lcov with branches (solidity-coverage)', 'solidity-coverage/lcov.info'],
    ['coverage.py JSON', 'coverage-py/coverage.json'],
    ['coverage.py JSON with arcs', 'coverage-py/coverage-branch.json'],
    ['coverage.py XML of two sources', 'coverage-py-sources/coverage.xml'],
    ['a Go cover profile', 'go/coverage.out'],
    ['JaCoCo XML', 'jacoco/jacoco.xml'],
  ])('%s reads back line by line and branch by line as covgate read it', async (_, fixture) => {
    const report = await readReport(join(fixtures, fixture));
    // The writer leaves absolute paths out; these reports' paths are made relative as a
    // --path-map would.
    for (const file of report.files) file.path = file.path.replace(/^\/+/, '');
    const expected = linesOf(report.files);
    const back = parseCobertura(coberturaXml(report.files, META).xml);
    expect(Object.keys(expected).length).toBeGreaterThan(0);
    expect(linesOf(back.files)).toEqual(expected);
    expect(back.sources).toEqual(['.']);
  });
});
