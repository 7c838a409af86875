import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceFiles } from '../src/gate/read-reports.js';
import { gatherReports, type ReportSpec } from '../src/gather-reports.js';
import { parsePathMap } from '../src/paths/path-map.js';
import { discoveryLines, warningLines } from '../src/report-lines.js';
import { discoverReports } from '../src/reports/discover.js';
import { percentOf } from '../src/reports/merge.js';
import { covgateIn } from './in-process.js';
import { runC8Script, writeMonorepo } from './support.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

type Lines = { total: number; covered: number; pct: number };
const readTotal = async (path: string): Promise<Lines> =>
  JSON.parse(await readFile(path, 'utf8')).total.lines;
/** The summary covgate should give of `files` files that c8 measured as `lines`. */
const summaryOf = (lines: Lines, files: number) => ({
  covered: lines.covered,
  coverable: lines.total,
  percent: lines.pct,
  files,
});

/**
 * {@link writeMonorepo} with each package tested by c8 in its own folder, and c8's json-summary
 * of the tests of both run at the root: the folder and that figure of the whole.
 */
async function measuredMonorepo(): Promise<{ dir: string; whole: Lines }> {
  const dir = await writeMonorepo();
  await runC8Script(join(dir, 'packages', 'a'), 'index.test.js');
  await runC8Script(join(dir, 'packages', 'b'), 'index.test.js');
  await runC8Script(dir, 'all.test.js', ['json-summary']);
  return { dir, whole: await readTotal(join(dir, 'coverage', 'coverage-summary.json')) };
}

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
    ({ dir, whole } = await measuredMonorepo());
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
    expect(read.summary).toEqual(summaryOf(whole, 2));
  });

  it("merges Istanbul JSON (absolute paths) and lcov (relative) of one run into c8's own figure", async () => {
    const read = await gather([
      { path: 'packages/b/coverage/coverage-final.json' },
      { path: 'packages/b/coverage/lcov.info' },
    ]);
    expect(read.summary).toEqual(summaryOf(perPackage.b, 1));
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

  it('merges two spellings of one file within one report', async () => {
    const pkg = join(dir, 'packages', 'a');
    const lcov = await readFile(join(pkg, 'coverage', 'lcov.info'), 'utf8');
    // The same record again under the absolute path and with ./ (as some tools write).
    await writeFile(
      join(pkg, 'coverage', 'twice.info'),
      lcov +
        lcov.replace('SF:index.js', `SF:${pkg}/index.js`) +
        lcov.replace('SF:index.js', 'SF:./index.js'),
    );
    const read = await gather([{ path: 'packages/a/coverage/twice.info' }]);
    expect(read.summary).toEqual(summaryOf(perPackage.a, 1));
  });

  it('names files from the repository root when run inside a package', async () => {
    const read = await gather([{ path: 'coverage/lcov.info' }], join(dir, 'packages', 'a'));
    expect(read.files.map((f) => f.path)).toEqual(['packages/a/index.js']);
    expect(read.reports[0]?.root).toBe('packages/a');
  });

  it("takes Cobertura's file names from its <source>, wherever the report was written", async () => {
    const pkg = join(dir, 'packages', 'a');
    await runC8Script(pkg, 'index.test.js', ['cobertura', 'lcov']);
    await cp(join(pkg, 'coverage'), join(pkg, 'reports', 'cov'), { recursive: true });
    const xml = await readFile(join(pkg, 'reports', 'cov', 'cobertura-coverage.xml'), 'utf8');
    expect(xml).toContain(`<source>${pkg}</source>`);
    const read = await gather([
      { path: 'packages/a/reports/cov/cobertura-coverage.xml' },
      // lcov names no base: a report outside coverage/ needs its --path-prefix.
      { path: 'packages/a/reports/cov/lcov.info', prefix: 'packages/a' },
    ]);
    expect(read.reports.map((r) => r.root)).toEqual(['packages/a', 'packages/a']);
    expect(read.summary).toEqual(summaryOf(perPackage.a, 1));
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
      // And there is no index.js at the root.
      '1 file the reports name is not in the checkout: index.js; they are counted as they are (--verbose lists all): give the folder the paths are relative to with --path-prefix after the --report, or refuse such reports with --strict-paths',
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

  it('finds each file of a Cobertura report with several <source>s under the one that has it', async () => {
    await cp(join(fixtures, 'coverage-py-sources'), join(dir, 'services', 'multi'), {
      recursive: true,
    });
    const read = await gather([{ path: 'services/multi/coverage.xml' }]);
    expect(read.reports[0]?.parsed.sources).toEqual(['lib', 'src']);
    expect(sourceFiles(read.files).map((f) => [f.path, f.covered, f.coverable])).toEqual([
      ['services/multi/lib/pkg2/__init__.py', 0, 0],
      ['services/multi/lib/pkg2/shapes.py', 3, 6],
      ['services/multi/src/pkg1/__init__.py', 0, 0],
      ['services/multi/src/pkg1/shapes.py', 4, 6],
    ]);
    // coverage report: TOTAL 12 5 58.33%
    expect(read.summary).toEqual({ covered: 7, coverable: 12, percent: 58.33, files: 4 });
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

// Without --report covgate searches the working tree: the reports of every tool above, the
// extra copies one c8 run writes, and files that only share a report's name.
describe('finding the reports of a monorepo', () => {
  let dir: string;
  let js: Lines;

  // `covgate report --dry-run` of whatever it finds, as web@main.
  const dryRunOfWebMain = [
    'report',
    '--repo',
    'web',
    '--branch',
    'main',
    '--commit',
    'abcdef1',
    '--dry-run',
  ];

  const put = async (path: string, text: string) => {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  };

  beforeAll(async () => {
    // c8 at the root measures the same lines: the JavaScript part of the whole.
    ({ dir, whole: js } = await measuredMonorepo());
    await rm(join(dir, 'coverage'), { recursive: true });
    await cp(join(fixtures, 'go', 'src'), join(dir, 'services', 'go'), { recursive: true });
    // Go's other usual name.
    await cp(join(fixtures, 'go', 'coverage.out'), join(dir, 'services', 'go', 'coverage.txt'));
    await mkdir(join(dir, 'services', 'py'), { recursive: true });
    await cp(
      join(fixtures, 'coverage-py', 'coverage.json'),
      join(dir, 'services', 'py', 'coverage.json'),
    );
    await mkdir(join(dir, 'services', 'java', 'target', 'site', 'jacoco'), { recursive: true });
    await cp(
      join(fixtures, 'jacoco', 'jacoco.xml'),
      join(dir, 'services', 'java', 'target', 'site', 'jacoco', 'jacoco.xml'),
    );
    const stray = 'SF:x.js\nDA:1,0\nend_of_record\n';
    await put('node_modules/dep/coverage/lcov.info', stray);
    await put('packages/a/node_modules/dep/coverage/lcov.info', stray);
    await put('.cache/coverage/lcov.info', stray);
    await put('test/fixtures/coverage/lcov.info', stray);
    await put('a/b/c/d/e/coverage/lcov.info', stray);
    await put('config/coverage.json', '{"threshold": 80}\n');
    await put('docs/coverage.txt', 'coverage: 80% of statements\n');
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('takes one report per tool run, skips dependencies, hidden folders, fixtures and look-alikes', async () => {
    const discovery = await discoverReports(dir);
    expect(discovery.found).toEqual([
      { path: 'packages/a/coverage/lcov.info', format: 'lcov' },
      { path: 'packages/b/coverage/lcov.info', format: 'lcov' },
      { path: 'services/go/coverage.txt', format: 'go' },
      { path: 'services/java/target/site/jacoco/jacoco.xml', format: 'jacoco' },
      { path: 'services/py/coverage.json', format: 'coverage-py' },
    ]);
    expect(discovery.skipped).toEqual([
      { path: 'config/coverage.json', format: undefined, expected: ['coverage-py'] },
      { path: 'docs/coverage.txt', format: undefined, expected: ['go'] },
    ]);
    expect(discovery.stopped).toBeUndefined();
  });

  it("merges what it found into the sum of each tool's own figure", async () => {
    const result = await covgateIn(dir, [...dryRunOfWebMain, '--json'], {});
    expect(result.code, result.stderr).toBe(0);
    // c8 at the root, go test -cover 8 of 14, coverage report 15 of 22, JaCoCo LINE 8 of 14.
    const covered = js.covered + 8 + 15 + 8;
    const coverable = js.total + 14 + 22 + 14;
    const out = JSON.parse(result.stdout);
    expect([out.covered_lines, out.coverable_lines, out.coverage]).toEqual([
      covered,
      coverable,
      percentOf(covered, coverable),
    ]);
    expect(out.source_files.map((f: { path: string }) => f.path)).toEqual([
      'packages/a/index.js',
      'packages/b/index.js',
      'services/go/shapes.go',
      'services/java/example/shapes/Shapes.java',
      'services/py/shapes.py',
      'services/py/test_shapes.py',
    ]);
    expect(result.stderr).toBe(
      [
        'covgate: found packages/a/coverage/lcov.info (lcov)',
        'covgate: found packages/b/coverage/lcov.info (lcov)',
        'covgate: found services/go/coverage.txt (go)',
        'covgate: found services/java/target/site/jacoco/jacoco.xml (jacoco)',
        'covgate: found services/py/coverage.json (coverage-py)',
        // Only the Go fixture's sources were copied; JaCoCo's source folder is not known.
        'covgate: warning: 3 files the reports name are not in the checkout: services/java/example/shapes/Shapes.java, services/py/shapes.py, services/py/test_shapes.py; they are counted as they are (--verbose lists all): give the folder the paths are relative to with --path-prefix after the --report, or refuse such reports with --strict-paths',
        'covgate: dry run: nothing was sent',
        '',
      ].join('\n'),
    );
  });

  it('with --verbose also names the files it passed over', async () => {
    const result = await covgateIn(join(dir, 'packages'), [...dryRunOfWebMain, '--verbose'], {});
    expect(result.stderr.split('\n').filter((l) => /found|skipped/.test(l))).toEqual([
      'covgate: found a/coverage/lcov.info (lcov)',
      'covgate: found b/coverage/lcov.info (lcov)',
    ]);
    const root = await covgateIn(dir, [...dryRunOfWebMain, '--verbose'], {});
    expect(root.stderr).toContain(
      'covgate: skipped config/coverage.json: not a coverage report, not coverage-py\n',
    );
  });

  it('stops at its limits and says so', async () => {
    const few = await discoverReports(dir, { depth: 4, folders: 3, ms: 5_000 });
    expect([few.folders, few.stopped]).toEqual([3, 'folders']);
    let t = 0;
    const late = await discoverReports(
      dir,
      { depth: 4, folders: 10_000, ms: 5_000 },
      () => (t += 1_000),
    );
    expect(late.stopped).toBe('time');
    expect(discoveryLines(few, false).at(-1)).toBe(
      'warning: the search for reports stopped after 3 folders; reports further down were not looked for: pass --report PATH for each',
    );
  });

  it('exits 2 naming what it looked for when there is nothing', async () => {
    const empty = join(dir, 'config');
    const result = await covgateIn(
      empty,
      ['report', '--repo', 'web', '--branch', 'main', '--dry-run'],
      {},
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'covgate: no coverage report found (searched 1 folder for coverage/lcov.info, coverage/coverage-final.json, coverage/cobertura-coverage.xml, coverage/clover.xml, coverage/coverage-summary.json, coverage.xml, coverage.json, coverage.lcov, coverage.out, coverage.txt, cover.out, lcov.info, clover.xml, coverage.cobertura.xml, sonarqube.xml, target/site/jacoco/jacoco.xml, build/reports/jacoco/test/jacocoTestReport.xml): pass --report PATH\n',
    );
  });
});
