import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { itReturns } from '@covgate/test-support/value-table';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFormat } from '../src/reports/detect.js';
import { mergeReports, percentOf } from '../src/reports/merge.js';
import { parseReport, readReport } from '../src/reports/read-report.js';
import { sniffFormat } from '../src/reports/sniff.js';
import { type ParsedReport, ReportError } from '../src/reports/types.js';
import { runC8, runC8Text, writeLongModuleProject, writeSampleProject } from './support.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

describe('reports made by c8 (istanbul reporters) in this test', () => {
  let dir: string;
  let total: { lines: { total: number; covered: number; pct: number } };

  beforeAll(async () => {
    dir = await writeSampleProject({ coverClassify: true });
    await runC8(dir);
    const summary = JSON.parse(
      await readFile(join(dir, 'coverage', 'coverage-summary.json'), 'utf8'),
    );
    total = summary.total;
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    ['lcov.info', 'lcov'],
    ['cobertura-coverage.xml', 'cobertura'],
    ['clover.xml', 'clover'],
    ['coverage-summary.json', 'istanbul'],
    ['coverage-final.json', 'istanbul'],
  ])('reads %s as %s with the lines c8 counted', async (file, format) => {
    const report = await readReport(join(dir, 'coverage', file));
    expect(report.format).toBe(format);
    const summary = mergeReports([report]);
    // c8's own summary of the same run; the sample leaves lines uncovered, so this is no 100%.
    expect(total.lines.covered).toBeLessThan(total.lines.total);
    expect([summary.covered, summary.coverable]).toEqual([total.lines.covered, total.lines.total]);
    // Both truncate to hundredths: the very figure istanbul printed.
    expect(summary.percent).toBe(total.lines.pct);
  });

  it('merges reports of one run that name the file alike into the same lines', async () => {
    const read = (f: string) => readReport(join(dir, 'coverage', f));
    // lcov and Cobertura name the file relative to the project, Clover and JSON absolutely.
    for (const pair of [
      ['lcov.info', 'cobertura-coverage.xml'],
      ['clover.xml', 'coverage-final.json'],
    ]) {
      const merged = mergeReports(await Promise.all(pair.map(read)));
      expect([merged.covered, merged.coverable, merged.files]).toEqual([
        total.lines.covered,
        total.lines.total,
        1,
      ]);
    }
  });
});

describe('reports made by the real tools (fixtures, see fixtures/README.md)', () => {
  it('reads the Go cover profile as go test -cover: 8 of 14 statements, 57.1%', async () => {
    const report = await readReport(join(fixtures, 'go', 'coverage.out'));
    expect(report.format).toBe('go');
    expect(mergeReports([report])).toEqual({ covered: 8, coverable: 14, percent: 57.14, files: 1 });
  });

  it('reads coverage.py JSON as coverage report: 15 of 22 statements, 68.18%', async () => {
    const report = await readReport(join(fixtures, 'coverage-py', 'coverage.json'));
    expect(report.format).toBe('coverage-py');
    const doc = JSON.parse(await readFile(join(fixtures, 'coverage-py', 'coverage.json'), 'utf8'));
    expect([doc.totals.covered_lines, doc.totals.num_statements]).toEqual([15, 22]);
    expect(mergeReports([report])).toEqual({
      covered: 15,
      coverable: 22,
      percent: 68.18,
      files: 2,
    });
  });

  it('reads a coverage.py --branch report by its lines (68.18), not its branch-weighted 66.67', async () => {
    const path = join(fixtures, 'coverage-py', 'coverage-branch.json');
    const doc = JSON.parse(await readFile(path, 'utf8'));
    expect(doc.totals.percent_covered).toBeCloseTo(66.67, 2);
    expect(mergeReports([await readReport(path)]).percent).toBe(68.18);
  });

  it("reads JaCoCo XML as JaCoCo's LINE counter: 8 of 14 lines, 57.14%", async () => {
    const path = join(fixtures, 'jacoco', 'jacoco.xml');
    const text = await readFile(path, 'utf8');
    const counters = [...text.matchAll(/<counter type="LINE" missed="(\d+)" covered="(\d+)"\/>/g)];
    const [, missed, covered] = counters.at(-1) as RegExpMatchArray;
    expect([Number(covered), Number(missed)]).toEqual([8, 6]);
    const report = await readReport(path);
    expect(report.format).toBe('jacoco');
    expect(report.files.map((f) => f.path)).toEqual(['example/shapes/Shapes.java']);
    expect(mergeReports([report])).toEqual({ covered: 8, coverable: 14, percent: 57.14, files: 1 });
  });

  it("keeps a JaCoCo aggregate's groups apart as JaCoCo does: 10 of 26 lines, not 8 of 17", async () => {
    const path = join(fixtures, 'jacoco-aggregate', 'jacoco.xml');
    const text = await readFile(path, 'utf8');
    // The report-level counter is the last one, after the two groups.
    const [, missed, covered] =
      /<counter type="LINE" missed="(\d+)" covered="(\d+)"\/>(?:<counter [^>]*\/>)*<\/report>$/.exec(
        text.trim(),
      ) as RegExpExecArray;
    expect([Number(covered), Number(missed)]).toEqual([10, 16]);
    const report = await readReport(path);
    expect(report.format).toBe('jacoco');
    expect(report.files.map((f) => f.path)).toEqual([
      'module-a/example/shapes/Shapes.java',
      'module-b/example/shapes/Shapes.java',
    ]);
    expect(mergeReports([report])).toEqual({
      covered: 10,
      coverable: 26,
      percent: percentOf(10, 26),
      files: 2,
    });
  });

  it("reads istanbul-reports 1.x Clover (files inside the project's <metrics>) as its totals: 3067 of 3341 lines", async () => {
    const path = join(fixtures, 'clover-istanbul1', 'clover.xml');
    const text = await readFile(path, 'utf8');
    // istanbul-reports 1.x writes the project's line totals as statements/coveredstatements.
    const project =
      /<project [^>]*>\s*<metrics statements="(\d+)" coveredstatements="(\d+)"[^>]* files="(\d+)"[^/>]*>/.exec(
        text,
      ) as RegExpExecArray;
    expect(project.slice(1).map(Number)).toEqual([3341, 3067, 79]);
    const report = await readReport(path);
    expect(report.format).toBe('clover');
    expect(mergeReports([report])).toEqual({
      covered: 3067,
      coverable: 3341,
      percent: percentOf(3067, 3341),
      files: 79,
    });
  });
});

describe('reports each read as its own tool reads them (fixtures, see fixtures/README.md)', () => {
  /** Each line of a file as covered (1) or not (0): SonarQube's XML has no hit counts. */
  const coveredLines = (units: Map<number | string, number> | undefined) =>
    Object.fromEntries([...(units ?? [])].map(([line, hits]) => [line, hits > 0 ? 1 : 0]));
  /** Each file's covered and coverable lines, by path. */
  const byFile = (report: ParsedReport) =>
    Object.fromEntries(report.files.map((f) => [f.path, [f.covered, f.coverable]]));

  it("reads solidity-coverage's coverage-final.json by its line map l: 720 of 730, as its own lcov", async () => {
    const dir = join(fixtures, 'solidity-coverage');
    const lcovText = await readFile(join(dir, 'lcov.info'), 'utf8');
    const total = (key: string) =>
      [...lcovText.matchAll(new RegExp(`^${key}:(\\d+)$`, 'gm'))].reduce(
        (n, m) => n + Number(m[1]),
        0,
      );
    // The tool's own figures: its lcov's LH and LF (its HTML report says 720/730 too).
    expect([total('LH'), total('LF')]).toEqual([720, 730]);
    const json = await readReport(join(dir, 'coverage-final.json'));
    const lcov = await readReport(join(dir, 'lcov.info'));
    expect(json.format).toBe('istanbul');
    expect(mergeReports([json])).toEqual({
      covered: 720,
      coverable: 730,
      percent: percentOf(720, 730),
      files: 25,
    });
    expect(byFile(json)).toEqual(byFile(lcov));
  });

  it('finds solidity-coverage JSON by its content (its files start with the line map l)', async () => {
    const head = (
      await readFile(join(fixtures, 'solidity-coverage', 'coverage-final.json'), 'utf8')
    ).slice(0, 4096);
    expect(sniffFormat(head, false)).toBe('istanbul');
  });

  it("reads SonarQube generic XML (gcovr --sonarqube): 11 of 17 lines in 2 files, as gcovr's summary", async () => {
    const dir = join(fixtures, 'sonarqube');
    const report = await readReport(join(dir, 'sonarqube.xml'));
    expect(report.format).toBe('sonarqube');
    expect(mergeReports([report])).toEqual({
      covered: 11,
      coverable: 17,
      percent: percentOf(11, 17),
      files: 2,
    });
    // gcovr's Cobertura of the same run, file by file and line by line.
    const cobertura = await readReport(join(dir, 'cobertura.xml'));
    expect(cobertura.format).toBe('cobertura');
    expect(byFile(report)).toEqual(byFile(cobertura));
    for (const file of report.files) {
      const same = cobertura.files.find((f) => f.path === file.path);
      expect(coveredLines(file.units?.())).toEqual(coveredLines(same?.units?.()));
    }
  });

  it('reads the lines of coverage.py JSON without its excluded lines, as its XML lists them', async () => {
    const dir = join(fixtures, 'coverage-py-excluded');
    const doc = JSON.parse(await readFile(join(dir, 'coverage.json'), 'utf8'));
    // The case: lines both executed and excluded (`# pragma: no cover` on lines that ran).
    const limits = doc.files['limits.py'];
    expect(limits.executed_lines.filter((l: number) => limits.excluded_lines.includes(l))).toEqual([
      7, 13, 18,
    ]);
    const json = await readReport(join(dir, 'coverage.json'));
    const xml = await readReport(join(dir, 'coverage.xml'));
    expect(mergeReports([json])).toEqual(mergeReports([xml]));
    for (const file of json.files) {
      const same = xml.files.find((f) => f.path === file.path);
      expect(Object.fromEntries(file.lines?.() ?? [])).toEqual(
        Object.fromEntries(
          [...(same?.units?.() ?? [])].map(([line, hits]) => [line, hits > 0 ? 1 : 0]),
        ),
      );
    }
  });

  it.each([
    ['coverage-final.json', 'auto'],
    ['coverage-final.json', 'istanbul'],
    ['coverage-summary.json', 'auto'],
  ] as const)(
    "says c8's %s of no files (%s) is an Istanbul report with no files",
    async (file, format) => {
      const path = join(fixtures, 'c8-empty', file);
      await expect(readReport(path, format)).rejects.toThrow(
        `${path}: an Istanbul report with no files: the tests loaded no file the coverage tool instruments (check its include, exclude and all options)`,
      );
    },
  );
});

describe('malformed, empty and unknown reports', () => {
  const bad: [string, string, string][] = [
    ['empty', '', 'the file is empty'],
    ['blank', '  \n\n', 'the file is empty'],
    [
      'unknown',
      'hello world\n',
      'not a coverage report covgate knows (lcov, Cobertura, Clover, JaCoCo, Istanbul JSON, Go cover profile, coverage.py JSON, SonarQube generic XML); name one with --format',
    ],
    [
      'unknown JSON',
      '{"a": 1}',
      'not a coverage report covgate knows (lcov, Cobertura, Clover, JaCoCo, Istanbul JSON, Go cover profile, coverage.py JSON, SonarQube generic XML); name one with --format',
    ],
    ['lcov DA outside a record', 'TN:\nDA:1,1\n', 'line 2: DA outside a record (no SF: before it)'],
    [
      'lcov DA without a count',
      'SF:a.js\nDA:1\nend_of_record\n',
      'line 2: not a DA:<line>,<count> entry',
    ],
    ['lcov record never ended', 'SF:a.js\nDA:1,1\n', 'record of a.js has no end_of_record'],
    ['lcov garbage line', 'SF:a.js\nDA:1,1\n<html>\nend_of_record\n', 'line 3: not an lcov entry'],
    ['lcov without records', 'TN:\n', 'the lcov report lists no files'],
    [
      'truncated XML',
      '<?xml version="1.0"?>\n<coverage line-rate="1"><packages>',
      'not well-formed XML: the file ends at line 2 inside <packages> (truncated?)',
    ],
    [
      'XML cut inside a tag',
      '<?xml version="1.0"?>\n<coverage line-rate="1">\n<packages><package name="a',
      'not well-formed XML: the file ends at line 3 inside <packages> (truncated?)',
    ],
    [
      'XML with a mismatched close tag',
      '<coverage>\n<packages></package></coverage>',
      'not well-formed XML (line 2: unexpected close tag)',
    ],
    [
      'XML using an entity its DOCTYPE declares (billion laughs)',
      `<?xml version="1.0"?><!DOCTYPE coverage [<!ENTITY a "aaaaaaaaaa">${Array.from(
        { length: 9 },
        (_, i) => `<!ENTITY ${'b'.repeat(i + 1)} "${`&${i ? 'b'.repeat(i) : 'a'};`.repeat(10)}">`,
      ).join('')}]>\n<coverage><packages>&bbbbbbbbb;</packages></coverage>`,
      'not well-formed XML (line 2: undefined entity; entities declared in a DOCTYPE are not expanded)',
    ],
    [
      'XML with an attribute twice',
      '<coverage>\n<packages a="1" b="2" a="3"/></coverage>',
      'not well-formed XML (line 2: duplicate attribute: a)',
    ],
    [
      'XML using an external entity',
      '<?xml version="1.0"?>\n<!DOCTYPE coverage [<!ENTITY x SYSTEM "file:///etc/hostname">]>\n<coverage><packages><package><classes><class filename="&x;"/></classes></package></packages></coverage>',
      'not well-formed XML (line 3: undefined entity; entities declared in a DOCTYPE are not expanded)',
    ],
    [
      'Cobertura without packages',
      '<coverage line-rate="1"></coverage>',
      'the cobertura report lists no files',
    ],
    [
      'Cobertura line without hits',
      '<coverage><packages><package><classes><class filename="a.py"><lines><line number="1"/></lines></class></classes></package></packages></coverage>',
      'a <line> hits is not a count: undefined',
    ],
    [
      'unknown XML',
      '<html><body/></html>',
      'not a coverage report covgate knows (lcov, Cobertura, Clover, JaCoCo, Istanbul JSON, Go cover profile, coverage.py JSON, SonarQube generic XML); name one with --format',
    ],
    [
      'Go profile with a bad block',
      'mode: set\nmain.go:1.1,2.2 one 1\n',
      'line 2: not "file:start,end statements count"',
    ],
    [
      'Istanbul summary without lines',
      '{"total":{"lines":{"total":1,"covered":1}},"a.js":{"statements":{}}}',
      'the entry of a.js has no lines summary',
    ],
  ];

  it.each(bad)('%s: says what is wrong', (_name, text, message) => {
    expect(() => parseReport(text)).toThrow(message);
  });

  it('names the file the user gave when it is missing or malformed', async () => {
    await expect(readReport('no/such/lcov.info')).rejects.toThrow(
      new ReportError('no/such/lcov.info', 'no such file'),
    );
    await expect(readReport(fixtures)).rejects.toThrow(`${fixtures}: is a folder, not a report`);
  });

  it('reads a report as the --format given, and fails when it is another', () => {
    const lcov = 'SF:a.js\nDA:1,1\nDA:2,0\nend_of_record\n';
    expect(parseReport(lcov, 'lcov').format).toBe('lcov');
    expect(() => parseReport(lcov, 'cobertura')).toThrow(
      'not well-formed XML (line 1: text before the root element)',
    );
    expect(() => parseReport(`\n\n${lcov}`, 'jacoco')).toThrow(
      'not well-formed XML (line 3: text before the root element)',
    );
    const cobertura = '<coverage><packages/></coverage>';
    expect(() => parseReport(cobertura, 'jacoco')).toThrow('no <report> root element');
    expect(() => parseReport(cobertura, 'clover')).toThrow('no <coverage><project> root elements');
    expect(() => parseReport('<report/>', 'cobertura')).toThrow('no <coverage> root element');
    expect(() => parseReport(lcov, 'istanbul')).toThrow(/^not valid JSON/);
  });
});

describe('format detection', () => {
  itReturns(detectFormat, '%j is %s', [
    ['TN:\nSF:a.js\n', 'lcov'],
    ['SF:a.js\nend_of_record\n', 'lcov'],
    [
      '\uFEFF<?xml version="1.0" ?>\n<!DOCTYPE coverage SYSTEM "x.dtd">\n<coverage line-rate="0.5">',
      'cobertura',
    ],
    [
      '<?xml version="1.0"?>\n<!-- c -->\n<coverage generated="1" clover="3.2.0">\n  <project timestamp="1">',
      'clover',
    ],
    [
      '<?xml version="1.0"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"><report name="x">',
      'jacoco',
    ],
    ['mode: atomic\na.go:1.1,2.2 1 0\n', 'go'],
    ['{"meta":{},"files":{},"totals":{}}', 'coverage-py'],
    ['{"total":{"lines":{"total":0}}}', 'istanbul'],
    ['{"/a.js":{"path":"/a.js","statementMap":{},"s":{}}}', 'istanbul'],
    ['{}', 'istanbul'],
    ['<?xml version="1.0" ?>\n<coverage version="1">\n\t<file path="a.c">', 'sonarqube'],
    ['<coverage version="1"/>', 'sonarqube'],
    ['<coverage version="1.9" line-rate="1">', 'cobertura'],
  ]);
});

describe('line counting and merging', () => {
  it('unites the lines of a file named twice, covered in either', () => {
    const a = parseReport('SF:a.js\nDA:1,1\nDA:2,0\nDA:3,0\nend_of_record\n');
    const b = parseReport(
      'SF:a.js\nDA:2,5\nDA:4,0\nend_of_record\nSF:b.js\nDA:1,0\nend_of_record\n',
    );
    expect(mergeReports([a, b])).toEqual({ covered: 2, coverable: 5, percent: 40, files: 2 });
  });

  it('uses LF/LH of an lcov record without DA lines', () => {
    const report = parseReport('SF:a.c\nLF:8\nLH:3\nend_of_record\n');
    expect(mergeReports([report])).toEqual({ covered: 3, coverable: 8, percent: 37.5, files: 1 });
  });

  it('counts a Go block listed twice (-coverpkg) once, covered if either copy ran', () => {
    const report = parseReport(
      'mode: set\nx/a.go:1.1,3.2 2 0\nx/a.go:4.1,5.2 1 1\nmode: set\nx/a.go:1.1,3.2 2 1\n',
    );
    expect(mergeReports([report])).toEqual({ covered: 3, coverable: 3, percent: 100, files: 1 });
  });

  it('counts only the class-level lines of Cobertura, not their copies under methods', () => {
    const xml = `<coverage><packages><package name="p"><classes><class name="A" filename="a.py">
      <methods><method name="f"><lines><line number="1" hits="1"/></lines></method></methods>
      <lines><line number="1" hits="1"/><line number="2" hits="0"/></lines></class>
      <class name="A$Inner" filename="a.py"><lines><line number="3" hits="2"/></lines></class>
      </classes></package></packages></coverage>`;
    expect(mergeReports([parseReport(xml)])).toEqual({
      covered: 2,
      coverable: 3,
      percent: 66.66,
      files: 1,
    });
  });

  it('keeps the <source> folders of a Cobertura report, not the empty one coverage.py adds', () => {
    const xml = `<coverage><sources><source></source><source>/r/a&amp;b</source>
      <source> src </source></sources><packages><package name="p"><classes>
      <class name="x" filename="x.py"><lines><line number="1" hits="1"/></lines></class>
      </classes></package></packages></coverage>`;
    expect(parseReport(xml).sources).toEqual(['/r/a&b', 'src']);
    expect(parseReport(xml.replace(/<sources>[\s\S]*<\/sources>/, '')).sources).toBeUndefined();
  });

  it('counts Clover stmt and cond lines, not method declarations', () => {
    const xml = `<coverage clover="4"><project><package name="p"><file name="A.php" path="/src/A.php">
      <line num="3" type="method" name="f" count="1"/><line num="4" type="stmt" count="1"/>
      <line num="5" type="cond" truecount="0" falsecount="1"/><line num="6" type="stmt" count="0"/>
      </file></package></project></coverage>`;
    expect(mergeReports([parseReport(xml)])).toEqual({
      covered: 2,
      coverable: 3,
      percent: 66.66,
      files: 1,
    });
  });

  it('truncates to hundredths, never rounding up', () => {
    expect(percentOf(1, 800)).toBe(0.12);
    expect(percentOf(2, 3)).toBe(66.66);
    expect(percentOf(1, 3)).toBe(33.33);
    expect(percentOf(3123, 3125)).toBe(99.93);
    expect(percentOf(9999, 10000)).toBe(99.99);
    expect(percentOf(7, 7)).toBe(100);
    expect(percentOf(0, 0)).toBe(0);
    // Exact where a float quotient would land on the next hundredth: 99.99999999999 % is 99.99.
    expect(percentOf(999_999_999_999, 1_000_000_000_000)).toBe(99.99);
  });
});

describe('a figure with a third decimal of 6, measured by c8 in this test', () => {
  let dir: string;
  afterAll(() => dir && rm(dir, { recursive: true, force: true }));

  it('is 99.93 as istanbul prints it (3123 of 3125 lines is 99.936), not 99.94', async () => {
    dir = await writeLongModuleProject(3117);
    const text = await runC8Text(dir, 'main.mjs');
    // istanbul's own text summary of the run.
    expect(text).toContain('Lines        : 99.93% ( 3123/3125 )');
    const summary = mergeReports([await readReport(join(dir, 'coverage', 'lcov.info'))]);
    expect(summary).toEqual({ covered: 3123, coverable: 3125, percent: 99.93, files: 2 });
  }, 120_000);
});
