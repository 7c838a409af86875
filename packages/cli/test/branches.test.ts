import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summariseBranches } from '../src/reports/branches.js';
import { mergeFiles } from '../src/reports/merge.js';
import { parseReport, readReport } from '../src/reports/read-report.js';
import { toolAvailable } from './git-support.js';
import { runC8, writeSampleProject } from './support.js';

// Each format's branch figure against the producing tool's own summary of the same run.
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const lcovTool = toolAvailable('lcov', 'lcov');

/** The branch totals covgate reads from one report. */
async function branchesOf(path: string) {
  const report = await readReport(path);
  return summariseBranches(report.files);
}

/** `lcov --summary`'s branch figures of a tracefile: [covered, coverable]. */
async function lcovSummaryBranches(path: string): Promise<[number, number]> {
  const { stdout, stderr } = await promisify(execFile)('lcov', [
    '--summary',
    path,
    '--rc',
    'lcov_branch_coverage=1',
  ]);
  const match = /branches\.+: [\d.]+% \((\d+) of (\d+) branches\)/.exec(`${stdout}${stderr}`);
  if (!match) throw new Error(`lcov --summary printed no branch figure:\n${stdout}${stderr}`);
  return [Number(match[1]), Number(match[2])];
}

describe('branches of reports made by c8 in this test, as istanbul counts them', () => {
  let dir: string;
  let total: { branches: { total: number; covered: number } };

  beforeAll(async () => {
    dir = await writeSampleProject({ coverClassify: true });
    await runC8(dir);
    total = JSON.parse(
      await readFile(join(dir, 'coverage', 'coverage-summary.json'), 'utf8'),
    ).total;
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    'lcov.info',
    'coverage-final.json',
    'coverage-summary.json',
    'cobertura-coverage.xml',
    'clover.xml',
  ])('reads the branches of %s as c8 summed them', async (file) => {
    // The sample leaves a branch untaken, so the figure is no 100 %.
    expect(total.branches.covered).toBeLessThan(total.branches.total);
    const branches = await branchesOf(join(dir, 'coverage', file));
    expect([branches?.covered, branches?.coverable]).toEqual([
      total.branches.covered,
      total.branches.total,
    ]);
  });

  it.skipIf(!lcovTool)('reads the lcov branches as lcov --summary counts them', async () => {
    const path = join(dir, 'coverage', 'lcov.info');
    const branches = await branchesOf(path);
    expect([branches?.covered, branches?.coverable]).toEqual(await lcovSummaryBranches(path));
  });
});

describe('branches of reports made by the real tools (fixtures, see fixtures/README.md)', () => {
  it.skipIf(!lcovTool)(
    "reads solidity-coverage's branches, JSON and lcov alike: 402 of 424, as lcov --summary",
    async () => {
      const dir = join(fixtures, 'solidity-coverage');
      expect(await lcovSummaryBranches(join(dir, 'lcov.info'))).toEqual([402, 424]);
      for (const file of ['lcov.info', 'coverage-final.json']) {
        expect(await branchesOf(join(dir, file))).toEqual({
          covered: 402,
          coverable: 424,
          percent: 94.81,
          files: 25,
        });
      }
    },
  );

  it("reads JaCoCo's BRANCH counter: 13 of 20", async () => {
    const text = await readFile(join(fixtures, 'jacoco', 'jacoco.xml'), 'utf8');
    const counters = [
      ...text.matchAll(/<counter type="BRANCH" missed="(\d+)" covered="(\d+)"\/>/g),
    ];
    const [, missed, covered] = counters.at(-1) as RegExpMatchArray;
    expect([Number(covered), Number(missed)]).toEqual([13, 7]);
    expect(await branchesOf(join(fixtures, 'jacoco', 'jacoco.xml'))).toEqual({
      covered: 13,
      coverable: 20,
      percent: 65,
      files: 1,
    });
  });

  it('reads coverage.py --branch JSON as coverage report --branch: 5 of 8 branches', async () => {
    const path = join(fixtures, 'coverage-py', 'coverage-branch.json');
    const doc = JSON.parse(await readFile(path, 'utf8'));
    expect([doc.totals.covered_branches, doc.totals.num_branches]).toEqual([5, 8]);
    expect(await branchesOf(path)).toEqual({ covered: 5, coverable: 8, percent: 62.5, files: 2 });
  });

  it("reads SonarQube generic XML's conditions as gcovr counted them: 8 of 14", async () => {
    const dir = join(fixtures, 'sonarqube');
    const cobertura = await readFile(join(dir, 'cobertura.xml'), 'utf8');
    expect(/branches-covered="(\d+)" branches-valid="(\d+)"/.exec(cobertura)?.slice(1)).toEqual([
      '8',
      '14',
    ]);
    for (const file of ['sonarqube.xml', 'cobertura.xml']) {
      expect(await branchesOf(join(dir, file))).toEqual({
        covered: 8,
        coverable: 14,
        percent: 57.14,
        files: 2,
      });
    }
  });

  it.each([
    ['a Go cover profile', join('go', 'coverage.out')],
    ['coverage.py JSON made without --branch', join('coverage-py', 'coverage.json')],
  ])('says %s has no branch data, not 0 %%', async (_, file) => {
    expect(await branchesOf(join(fixtures, file))).toBeUndefined();
  });
});

describe('branches of one file in several reports', () => {
  it('unites lcov branches named alike: a branch taken in either shard is taken', () => {
    const shard = (taken: [string, string]) =>
      parseReport(
        `SF:a.js\nDA:1,1\nBRDA:1,0,0,${taken[0]}\nBRDA:1,0,1,${taken[1]}\nend_of_record\n`,
      );
    const { files } = mergeFiles([shard(['1', '0']), shard(['-', '2'])]);
    expect(summariseBranches(files)).toEqual({ covered: 2, coverable: 2, percent: 100, files: 1 });
  });

  it('keeps the larger count of a line whose format counts branches without naming them', () => {
    const cobertura = (covered: number) =>
      parseReport(
        `<coverage line-rate="1"><packages><package><classes><class filename="a.py"><lines><line number="3" hits="1" branch="true" condition-coverage="50% (${covered}/4)"/></lines></class></classes></package></packages></coverage>`,
      );
    const { files } = mergeFiles([cobertura(1), cobertura(3)]);
    expect(summariseBranches(files)).toEqual({ covered: 3, coverable: 4, percent: 75, files: 1 });
  });

  it.each([
    ['BRDA:x,0,0,1', 'line 3: not a BRDA:<line>,<block>,<branch>,<taken> entry'],
    ['BRDA:1,0,1', 'line 3: not a BRDA:<line>,<block>,<branch>,<taken> entry'],
    ['BRDA:1,0,1,many', 'line 3: not a BRDA:<line>,<block>,<branch>,<taken> entry'],
  ])('refuses a malformed %s naming the line', (entry, message) => {
    expect(() => parseReport(`SF:a.js\nDA:1,1\n${entry}\nend_of_record\n`)).toThrow(message);
  });
});
