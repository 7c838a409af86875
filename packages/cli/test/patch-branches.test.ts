import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { covgatePatch, createRepo, type TestRepo, toolAvailable } from './git-support.js';

// The patch branch figure (issue 43) on a real coverage.py `--branch` run: the branches of the
// changed lines, read from coverage.py's JSON and from its XML, equal the count of coverage.py's
// own branch arcs that leave a changed line. diff-cover's `--branch-coverage` would be the
// reference, but Debian's diff-cover (7.4.0) has no such option (docs/decisions/runs.md).
const tools = toolAvailable('python3-coverage', 'python3-coverage');

const BASE = {
  'grade.py': `def grade(score):
    if score >= 90:
        return 'A'
    return 'B'
`,
  'run_tests.py': `import grade
assert grade.grade(95) == 'A'
`,
};

const FEATURE = {
  // Lines 4-8 changed (git counts the moved return as changed): two new ifs, one taken
  // both ways, one never false.
  'grade.py': `def grade(score):
    if score >= 90:
        return 'A'
    if score >= 80:
        return 'B'
    if score >= 0:
        return 'C'
    return 'F'
`,
  // A new file: every line changed.
  'shipping.py': `def cost(weight, express):
    if express:
        return 20
    if weight > 10:
        return 15
    return 5
`,
  'run_tests.py': `import grade
import shipping
assert grade.grade(95) == 'A'
assert grade.grade(85) == 'B'
assert grade.grade(10) == 'C'
assert shipping.cost(1, True) == 20
`,
};

/** The lines the feature branch adds or changes, per file (checked against git below). */
const CHANGED: Record<string, number[]> = {
  'grade.py': [4, 5, 6, 7, 8],
  'shipping.py': [1, 2, 3, 4, 5, 6],
  'run_tests.py': [2, 4, 5, 6],
};

interface CoverageJson {
  files: Record<
    string,
    { executed_branches: [number, number][]; missing_branches: [number, number][] }
  >;
}

/** coverage.py's own branch arcs that leave a changed line: [taken, total]. */
function arcsOfChangedLines(report: CoverageJson): { covered: number; total: number } {
  let covered = 0;
  let total = 0;
  for (const [path, file] of Object.entries(report.files)) {
    const lines = new Set(CHANGED[path] ?? []);
    for (const [from] of file.executed_branches) if (lines.has(from)) covered++, total++;
    for (const [from] of file.missing_branches) if (lines.has(from)) total++;
  }
  return { covered, total };
}

describe.skipIf(!tools)('patch branches on a coverage.py --branch project', () => {
  let repo: TestRepo;
  const coverage = (...args: string[]) => repo.run('python3-coverage', args);

  beforeAll(async () => {
    repo = await createRepo('patch-branches');
    await repo.write(BASE);
    await repo.commit('base');
    await repo.git('checkout', '-q', '-b', 'feature');
    await repo.write(FEATURE);
    await repo.commit('feature');
    await coverage('run', '--branch', '--source=.', 'run_tests.py');
    await coverage('xml', '-o', 'coverage.xml');
    await coverage('json', '-o', 'coverage.json');
  }, 120_000);

  afterAll(() => repo?.remove());

  it('the changed lines are the ones the figures are counted on', async () => {
    const diff = await repo.git('diff', '-U0', 'main...feature');
    const hunks = [...diff.matchAll(/^\+\+\+ b\/(.+)$|^@@ -\S+ \+(\d+)(?:,(\d+))? @@/gm)];
    const changed: Record<string, number[]> = {};
    let file = '';
    for (const hunk of hunks) {
      if (hunk[1]) file = hunk[1];
      else {
        const start = Number(hunk[2]);
        const count = hunk[3] === undefined ? 1 : Number(hunk[3]);
        const lines = changed[file] ?? [];
        for (let line = start; line < start + count; line++) lines.push(line);
        changed[file] = lines;
      }
    }
    expect(changed).toEqual(CHANGED);
  });

  it('counts the branches leaving the changed lines, from the JSON and from the XML alike', async () => {
    const report = JSON.parse(await readFile(join(repo.dir, 'coverage.json'), 'utf8'));
    const expected = arcsOfChangedLines(report as CoverageJson);
    // The comparison means something: taken and untaken branches on changed lines.
    expect(expected.covered).toBeGreaterThan(0);
    expect(expected.covered).toBeLessThan(expected.total);
    const fromJson = await covgatePatch(repo, ['coverage.json'], 'main');
    const fromXml = await covgatePatch(repo, ['coverage.xml'], 'main');
    expect((fromJson as { branches?: unknown }).branches).toEqual(expected);
    expect((fromXml as { branches?: unknown }).branches).toEqual(expected);
  });

  it('counts the arcs of a wholly new file as coverage.py’s own summary counts its branches', async () => {
    const report = JSON.parse(
      await readFile(join(repo.dir, 'coverage.json'), 'utf8'),
    ) as CoverageJson & {
      files: Record<string, { summary: { num_branches: number; covered_branches: number } }>;
    };
    const shipping = report.files['shipping.py'];
    expect(shipping).toBeDefined();
    const own = arcsOfChangedLines({
      files: { 'shipping.py': shipping as CoverageJson['files'][string] },
    });
    expect(own).toEqual({
      covered: shipping?.summary.covered_branches,
      total: shipping?.summary.num_branches,
    });
  });
});
