import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatherReports, type ReportSpec } from '../src/gather-reports.js';
import { parsePathMap } from '../src/paths/path-map.js';
import { warningLines } from '../src/report-lines.js';
import { percentOf } from '../src/reports/merge.js';
import { runC8Script, writeMonorepo } from './support.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

type Lines = { total: number; covered: number; pct: number };
const readTotal = async (path: string): Promise<Lines> =>
  JSON.parse(await readFile(path, 'utf8')).total.lines;

// A monorepo whose two packages both name their module `index.js`, each tested with c8 in its
// own folder (reports in packages/*/coverage/, paths relative to the package), and the same
// tests run once by c8 at the root: its json-summary is the tool's figure of the whole.
describe('a monorepo of two packages measured by c8', () => {
  let dir: string;
  let whole: Lines;
  let perPackage: { a: Lines; b: Lines };
  const gather = (reports: ReportSpec[], cwd = dir, pathMap: string[] = []) =>
    gatherReports({ reports, format: 'auto', pathMaps: pathMap.map(parsePathMap), cwd });
  const each = (file: string) => [
    { path: `packages/a/coverage/${file}` },
    { path: `packages/b/coverage/${file}` },
  ];

  beforeAll(async () => {
    dir = await writeMonorepo();
    await runC8Script(join(dir, 'packages', 'a'), 'index.test.js');
    await runC8Script(join(dir, 'packages', 'b'), 'index.test.js');
    await runC8Script(dir, 'all.test.js', ['json-summary']);
    whole = await readTotal(join(dir, 'coverage', 'coverage-summary.json'));
    perPackage = {
      a: await readTotal(join(dir, 'packages/a/coverage/coverage-summary.json')),
      b: await readTotal(join(dir, 'packages/b/coverage/coverage-summary.json')),
    };
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('the packages write SF:index.js alike, and differ (the case that joined them)', async () => {
    for (const pkg of ['a', 'b']) {
      const lcov = await readFile(join(dir, 'packages', pkg, 'coverage', 'lcov.info'), 'utf8');
      expect(lcov).toContain('\nSF:index.js\n');
    }
    expect(perPackage.a.total).not.toBe(perPackage.b.total);
    expect(whole.covered).toBe(perPackage.a.covered + perPackage.b.covered);
  });

  it.each([
    'lcov.info',
    'coverage-final.json',
    'cobertura-coverage.xml',
    'clover.xml',
    'coverage-summary.json',
  ])('merges both packages %s into 2 files with the figure of c8 at the root', async (file) => {
    const read = await gather(each(file));
    expect(read.files.map((f) => f.path)).toEqual(['packages/a/index.js', 'packages/b/index.js']);
    expect([read.summary.covered, read.summary.coverable, read.summary.percent]).toEqual([
      whole.covered,
      whole.total,
      whole.pct,
    ]);
    expect(read.clashes).toEqual([]);
  });

  it('merges every format of both packages (absolute and relative paths) into the same 2 files', async () => {
    const files = ['lcov.info', 'coverage-final.json', 'cobertura-coverage.xml', 'clover.xml'];
    const read = await gather(files.flatMap(each));
    expect(read.summary).toEqual({
      covered: whole.covered,
      coverable: whole.total,
      percent: whole.pct,
      files: 2,
    });
  });

  it("merges Istanbul JSON (absolute paths) and lcov (relative) of one run into c8's own figure", async () => {
    const read = await gather([
      { path: 'packages/b/coverage/coverage-final.json' },
      { path: 'packages/b/coverage/lcov.info' },
    ]);
    expect(read.summary).toEqual({
      covered: perPackage.b.covered,
      coverable: perPackage.b.total,
      percent: perPackage.b.pct,
      files: 1,
    });
    expect(read.reports.map((r) => [r.path, r.root, r.parsed.files[0]?.path, r.raw[0]])).toEqual([
      [
        'packages/b/coverage/coverage-final.json',
        'packages/b',
        'packages/b/index.js',
        join(dir, 'packages/b/index.js'),
      ],
      ['packages/b/coverage/lcov.info', 'packages/b', 'packages/b/index.js', 'index.js'],
    ]);
  });

  it('names files from the repository root when run inside a package', async () => {
    const read = await gather([{ path: 'coverage/lcov.info' }], join(dir, 'packages', 'a'));
    expect(read.files.map((f) => f.path)).toEqual(['packages/a/index.js']);
    expect(read.reports[0]?.root).toBe('packages/a');
  });

  it('warns naming the file when two reports give one path different lines', async () => {
    // --path-prefix . on both takes both index.js for one file at the root: the clash shows.
    const read = await gather(each('lcov.info').map((r) => ({ ...r, prefix: '.' })));
    expect(read.files.map((f) => f.path)).toEqual(['index.js']);
    expect(read.clashes).toEqual([
      { path: 'index.js', reports: [0, 1], last: [6, 10], by: 'line' },
    ]);
    expect(warningLines(read)).toEqual([
      'index.js: packages/a/coverage/lcov.info and packages/b/coverage/lcov.info name it with different lines (last line 6 and 10); if these are two files, tell them apart with --path-prefix after each --report',
    ]);
  });

  it('takes relative paths from --path-prefix, and rewrites folders with --path-map', async () => {
    const read = await gather(
      [{ path: 'packages/a/coverage/lcov.info', prefix: 'packages/a/lib' }],
      dir,
      ['packages/a/lib=src/a'],
    );
    expect(read.files.map((f) => f.path)).toEqual(['src/a/index.js']);
  });
});

// The reports of the other tools (see fixtures/README.md, each with the tool's own figure)
// laid out as a monorepo's services, two of each kind with the same file names inside.
describe('a monorepo of Go, coverage.py and JaCoCo services', () => {
  let dir: string;
  const gather = (reports: ReportSpec[], pathMap: string[] = []) =>
    gatherReports({ reports, format: 'auto', pathMaps: pathMap.map(parsePathMap), cwd: dir });

  beforeAll(async () => {
    dir = await writeMonorepo();
    for (const service of ['go', 'go2']) {
      await cp(join(fixtures, 'go', 'src'), join(dir, 'services', service), { recursive: true });
      await cp(
        join(fixtures, 'go', 'coverage.out'),
        join(dir, 'services', service, 'coverage.out'),
      );
    }
    for (const service of ['py', 'py2']) {
      await mkdir(join(dir, 'services', service), { recursive: true });
      await cp(
        join(fixtures, 'coverage-py', 'coverage.json'),
        join(dir, 'services', service, 'coverage.json'),
      );
    }
    const jacoco = join(dir, 'services', 'java', 'target', 'site', 'jacoco');
    await mkdir(jacoco, { recursive: true });
    await cp(join(fixtures, 'jacoco', 'jacoco.xml'), join(jacoco, 'jacoco.xml'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('makes Go import paths relative to the folder of go.mod: two modules, two files', async () => {
    const read = await gather([
      { path: 'services/go/coverage.out' },
      { path: 'services/go2/coverage.out' },
    ]);
    // go test -cover: 8 of 14 statements in each.
    expect(read.files.map((f) => [f.path, f.covered, f.coverable])).toEqual([
      ['services/go/shapes.go', 8, 14],
      ['services/go2/shapes.go', 8, 14],
    ]);
    expect(read.reports[0]?.root).toBe('services/go');
  });

  it('keeps an import path no go.mod explains, which --path-map rewrites', async () => {
    await cp(join(fixtures, 'go', 'coverage.out'), join(dir, 'moved.out'));
    const kept = await gather([{ path: 'moved.out' }]);
    expect(kept.files.map((f) => f.path)).toEqual(['example.com/shapes/shapes.go']);
    const mapped = await gather([{ path: 'moved.out' }], ['example.com/shapes=services/go']);
    expect(mapped.files.map((f) => f.path)).toEqual(['services/go/shapes.go']);
    // A --path-prefix names the folder of go.mod.
    const prefixed = await gather([{ path: 'moved.out', prefix: 'services/go2' }]);
    expect(prefixed.files.map((f) => f.path)).toEqual(['services/go2/shapes.go']);
  });

  it('knows the modules a go.work uses, for a profile of the whole workspace', async () => {
    const work = join(dir, 'work');
    await cp(join(fixtures, 'go', 'src'), join(work, 'shapes'), { recursive: true });
    await writeFile(join(work, 'go.work'), 'go 1.19\n\nuse (\n\t./shapes\n)\n');
    await cp(join(fixtures, 'go', 'coverage.out'), join(work, 'coverage.out'));
    const read = await gather([{ path: 'work/coverage.out' }]);
    expect(read.files.map((f) => f.path)).toEqual(['work/shapes/shapes.go']);
  });

  it("takes coverage.py JSON's paths from the report's folder: 2 x 15 of 22 statements", async () => {
    const read = await gather([
      { path: 'services/py/coverage.json' },
      { path: 'services/py2/coverage.json' },
    ]);
    expect(read.files.map((f) => f.path)).toEqual([
      'services/py/shapes.py',
      'services/py/test_shapes.py',
      'services/py2/shapes.py',
      'services/py2/test_shapes.py',
    ]);
    expect([read.summary.covered, read.summary.coverable]).toEqual([30, 44]);
    expect(read.summary.percent).toBe(percentOf(15, 22));
  });

  it('puts JaCoCo package paths under the project holding target/, and --path-prefix adds the source folder', async () => {
    const report = 'services/java/target/site/jacoco/jacoco.xml';
    const guessed = await gather([{ path: report }]);
    expect(guessed.files.map((f) => [f.path, f.covered, f.coverable])).toEqual([
      ['services/java/example/shapes/Shapes.java', 8, 14],
    ]);
    const exact = await gather([{ path: report, prefix: 'services/java/src/main/java' }]);
    expect(exact.files.map((f) => f.path)).toEqual([
      'services/java/src/main/java/example/shapes/Shapes.java',
    ]);
  });
});
