import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  covgatePatch,
  createRepo,
  expectDiffCoverFigures,
  type TestRepo,
  toolAvailable,
} from './git-support.js';
import { C8_REPORTERS, runC8Script } from './support.js';

// Patch coverage read from each format, on reports the real tools made of a small git
// repository built here. Where diff-cover reads the format (lcov, Cobertura, Clover, JaCoCo) its
// figure on the same report is the reference; Istanbul JSON is compared with diff-cover on the
// lcov of the same c8 run (istanbul writes that lcov from the same statement map).

const SHAPES_BASE = `export function area(w, h) {
  return w * h;
}

export function perimeter(w, h) {
  return 2 * (w + h);
}
`;

const SHAPES_FEATURE = `export function area(w, h) {
  if (w < 0 || h < 0) {
    throw new Error('negative side');
  }
  return w * h;
}

export function perimeter(w, h) {
  const sum = w + h;
  return 2 * sum;
}

// Tested.
export function square(side) {
  return area(side, side);
}

export function cube(side) {
  const face = square(side);
  return face * side;
}
`;

const MAIN = `import assert from 'node:assert/strict';
import { area, perimeter, square } from './src/shapes.mjs';
assert.equal(area(2, 3), 6);
assert.equal(perimeter(2, 3), 10);
assert.equal(square(3), 9);
`;

describe.skipIf(!toolAvailable('diff-cover', 'diff-cover'))(
  'patch coverage of c8 reports (lcov, Istanbul JSON, Cobertura, Clover)',
  () => {
    let repo: TestRepo;

    beforeAll(async () => {
      repo = await createRepo('patch-c8');
      await repo.write({
        'src/shapes.mjs': SHAPES_BASE,
        'main.mjs': MAIN,
        '.gitignore': 'coverage/\n',
      });
      await repo.commit('base');
      await repo.git('checkout', '-q', '-b', 'feature');
      await repo.write({ 'src/shapes.mjs': SHAPES_FEATURE });
      await repo.commit('feature');
      await runC8Script(repo.dir, 'main.mjs', C8_REPORTERS);
    }, 120_000);

    afterAll(() => repo?.remove());

    it.each([
      ['lcov', 'coverage/lcov.info'],
      ['cobertura', 'coverage/cobertura-coverage.xml'],
      ['clover', 'coverage/clover.xml'],
    ])('%s: the figure diff-cover gives on the same report', async (_format, report) => {
      const { reference } = await expectDiffCoverFigures(repo, report);
      expect(reference.total_num_violations).toBeGreaterThan(0);
      expect(reference.total_num_lines).toBeGreaterThan(reference.total_num_violations);
    });

    it('Istanbul coverage-final.json: the figure diff-cover gives on the lcov of the same run', async () => {
      await expectDiffCoverFigures(repo, 'coverage/lcov.info', {
        covgateReport: 'coverage/coverage-final.json',
      });
    });

    it('Istanbul coverage-summary.json has no lines: the file is named, nothing is counted', async () => {
      const patch = await covgatePatch(repo, ['coverage/coverage-summary.json'], 'main');
      expect(patch).toMatchObject({
        covered: 0,
        coverable: 0,
        percent: null,
        files: [],
        no_line_data: ['src/shapes.mjs'],
      });
    });
  },
);

const CALC_BASE = `package calc

// Add returns a + b.
func Add(a, b int) int {
	return a + b
}
`;

// go test writes these blocks for the added functions (start line.column,end line.column):
// Mul 9.24,12.2 ran; Abs 15.21,16.11 and 17.2,17.10 ran, and 16.11,16.24 (the one-line "if"'s
// body) did not; Div 21.24,23.2 did not. Comments, blank lines and Abs's closing brace are in
// no block.
const CALC_FEATURE = `package calc

// Add returns a + b.
func Add(a, b int) int {
	return a + b
}

// Mul is tested.
func Mul(a, b int) int {
	product := a * b
	return product
}

// Abs is tested with a positive number only.
func Abs(x int) int {
	if x < 0 { return -x }
	return x
}

// Div is never called.
func Div(a, b int) int {
	return a / b
}
`;

const CALC_TEST = `package calc

import "testing"

func TestCalc(t *testing.T) {
	if Add(1, 2) != 3 || Mul(2, 3) != 6 || Abs(4) != 4 {
		t.Fatal("wrong")
	}
}
`;

describe.skipIf(!toolAvailable('go', 'golang-go'))('patch coverage of a Go cover profile', () => {
  let repo: TestRepo;

  beforeAll(async () => {
    repo = await createRepo('patch-go');
    await repo.write({
      'go.mod': 'module example.com/calc\n\ngo 1.19\n',
      'calc.go': CALC_BASE,
      'calc_test.go': CALC_TEST.replace(' || Mul(2, 3) != 6 || Abs(4) != 4', ''),
      '.gitignore': 'coverage.out\n',
    });
    await repo.commit('base');
    await repo.git('checkout', '-q', '-b', 'feature');
    await repo.write({ 'calc.go': CALC_FEATURE, 'calc_test.go': CALC_TEST });
    await repo.commit('feature');
    const home = repo.env.HOME as string;
    await repo.run('go', ['test', '-coverprofile=coverage.out', './...'], {
      GOPATH: join(home, 'go'),
      GOCACHE: join(home, 'go-cache'),
      GOFLAGS: '-mod=mod',
      GOPROXY: 'off',
      CGO_ENABLED: '0',
    });
  }, 300_000);

  afterAll(() => repo?.remove());

  it('counts every line of a block, a line covered only when all of its blocks ran', async () => {
    const patch = await covgatePatch(repo, ['coverage.out'], 'main');
    expect(patch.files).toEqual([
      {
        path: 'calc.go',
        // Mul 9-12 and Abs 15 and 17 covered; Abs 16 (one of its two blocks did not run)
        // and Div 21-23 not.
        covered: 6,
        coverable: 10,
        uncovered_lines: [16, 21, 22, 23],
      },
      // The test file is no part of the profile.
    ]);
    expect(patch.not_in_report).toEqual([]);
    expect(patch.test_files).toEqual(['calc_test.go']);
    expect(patch.percent).toBe(60);
  });
});

const JACOCO = fileURLToPath(new URL('./fixtures/jacoco/', import.meta.url));

// JaCoCo's report of the fixture's sources (fixtures/README.md says how it was made): a
// Maven-style repository whose base has only Shapes.area, and whose branch adds classify()
// (partly tested) and perimeter() (never called): the fixture's Shapes.java.
describe.skipIf(!toolAvailable('diff-cover', 'diff-cover'))(
  'patch coverage of a JaCoCo report',
  () => {
    let repo: TestRepo;

    beforeAll(async () => {
      const source = 'src/main/java/example/shapes';
      const shapes = await readFile(join(JACOCO, 'src/example/shapes/Shapes.java'), 'utf8');
      const main = await readFile(join(JACOCO, 'src/example/shapes/ShapesMain.java'), 'utf8');
      repo = await createRepo('patch-jacoco');
      const areaOnly = `${shapes.slice(0, shapes.indexOf('    public static String classify'))}}\n`;
      await repo.write({
        [`${source}/Shapes.java`]: areaOnly,
        [`${source}/ShapesMain.java`]: main,
        '.gitignore': 'target/\n',
      });
      await repo.commit('base');
      await repo.git('checkout', '-q', '-b', 'feature');
      await repo.write({ [`${source}/Shapes.java`]: shapes });
      await repo.commit('feature');
      await repo.write({
        'target/site/jacoco/jacoco.xml': await readFile(join(JACOCO, 'jacoco.xml'), 'utf8'),
      });
    });

    afterAll(() => repo?.remove());

    it('the figure diff-cover gives on the same report and source root', async () => {
      const report = 'target/site/jacoco/jacoco.xml';
      const { reference } = await expectDiffCoverFigures(repo, report, {
        sourceRoot: 'src/main/java',
      });
      expect(reference.total_num_violations).toBeGreaterThan(0);
      expect(reference.total_num_lines).toBeGreaterThan(reference.total_num_violations);
    });
  },
);
