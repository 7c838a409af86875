import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { expect } from 'vitest';
import { run } from '../../../test/support/processes.js';
import { covgateIn } from './in-process.js';

/** True in CI (`.ci/run` sets `CI=1`), where a missing reference tool fails instead of skipping. */
export const IN_CI = process.env.CI === '1' || process.env.CI === 'true';

/**
 * Whether `command` is on PATH. Outside CI a missing tool skips the tests that need it, with a
 * loud warning naming the Debian package; in CI it does not skip: the tests then fail.
 */
export function toolAvailable(command: string, debianPackage: string): boolean {
  const found = (process.env.PATH ?? '')
    .split(delimiter)
    .some((folder) => folder !== '' && existsSync(join(folder, command)));
  if (!found && !IN_CI) {
    console.warn(
      `[covgate] ${command} is not installed: its patch coverage tests are SKIPPED (apt-get install -y ${debianPackage}); in CI they fail`,
    );
  }
  return found || IN_CI;
}

/** The environment the tools of these tests run with: no user config, a private HOME. */
export function toolEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'covgate test',
    GIT_AUTHOR_EMAIL: 'test@covgate.invalid',
    GIT_COMMITTER_NAME: 'covgate test',
    GIT_COMMITTER_EMAIL: 'test@covgate.invalid',
  };
}

/**
 * Runs a command in `cwd` to its end through the shared process helper and resolves with its
 * stdout; rejects with its output when it exits non-zero.
 */
export async function sh(
  cwd: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const result = await run(command, [...args], { cwd, env });
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.code}: ${result.stderr || result.stdout}`,
    );
  }
  return result.stdout;
}

/** A throw-away git repository with a private HOME beside it. */
export interface TestRepo {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Runs `command` in the repository with its environment (`env` on top); resolves with its stdout. */
  run: (command: string, args: readonly string[], env?: NodeJS.ProcessEnv) => Promise<string>;
  git: (...args: string[]) => Promise<string>;
  /** Writes files (paths relative to the repository), creating their folders. */
  write: (files: Record<string, string | Buffer>) => Promise<void>;
  /** Stages everything and commits. */
  commit: (message: string) => Promise<void>;
  remove: () => Promise<void>;
}

/** Creates a git repository whose first branch is `main`. */
export async function createRepo(prefix: string): Promise<TestRepo> {
  const root = await mkdtemp(join(tmpdir(), `covgate-${prefix}-`));
  const dir = join(root, 'repo');
  const home = join(root, 'home');
  await mkdir(dir);
  await mkdir(home);
  const env = toolEnv(home);
  const run = (command: string, args: readonly string[], extra: NodeJS.ProcessEnv = {}) =>
    sh(dir, command, args, { ...env, ...extra });
  const git = (...args: string[]) => run('git', args);
  await git('init', '-q', '-b', 'main');
  return {
    dir,
    env,
    run,
    git,
    write: async (files) => {
      for (const [path, content] of Object.entries(files)) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), content);
      }
    },
    commit: async (message) => {
      await git('add', '-A');
      await git('commit', '-q', '-m', message);
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

/** What diff-cover's `--json-report` says (the fields covgate is compared on). */
export interface DiffCoverReport {
  total_num_lines: number;
  total_num_violations: number;
  total_percent_covered: number;
  num_changed_lines: number;
  src_stats: Record<string, { violation_lines: number[]; percent_covered: number }>;
}

/** Runs Debian's `diff-cover` on `reports` against `compareBranch` and reads its JSON report. */
export async function diffCover(
  repo: TestRepo,
  reports: readonly string[],
  compareBranch: string,
  extra: readonly string[] = [],
): Promise<DiffCoverReport> {
  const out = join(repo.dir, '..', `diff-cover-${Date.now()}-${Math.random()}.json`);
  await sh(
    repo.dir,
    'diff-cover',
    [...reports, `--compare-branch=${compareBranch}`, '--json-report', out, ...extra],
    repo.env,
  );
  return JSON.parse(await readFile(out, 'utf8')) as DiffCoverReport;
}

/** The patch of a `covgate report --dry-run --json` run, as covgate measured it. */
export interface PatchJson {
  covered: number;
  coverable: number;
  percent: number | null;
  changed_lines: number;
  changed_files: number;
  files: { path: string; covered: number; coverable: number; uncovered_lines: number[] }[];
  not_in_report: string[];
  test_files: string[];
  no_line_data: string[];
  base_ref: string;
  merge_base: string;
}

/** Runs `covgate report --dry-run --json` on `reports` with `--base-branch` and returns its patch. */
export async function covgatePatch(
  repo: TestRepo,
  reports: readonly string[],
  baseBranch: string,
  extra: readonly string[] = [],
): Promise<PatchJson> {
  const args = ['report', '--repo', 'r', '--branch', 'feature', '--base-branch', baseBranch];
  for (const report of reports) args.push('--report', report);
  const result = await covgateIn(repo.dir, [...args, ...extra, '--dry-run', '--json'], repo.env);
  if (result.code !== 0) throw new Error(`covgate exited ${result.code}: ${result.stderr}`);
  const parsed = JSON.parse(result.stdout) as { patch: PatchJson | null; patch_skipped: string };
  if (!parsed.patch) throw new Error(`covgate measured no patch: ${parsed.patch_skipped}`);
  return parsed.patch;
}

/** diff-cover's figures in covgate's shape: totals and, per file, the lines not covered. */
export function diffCoverFigures(report: DiffCoverReport) {
  return {
    coverable: report.total_num_lines,
    covered: report.total_num_lines - report.total_num_violations,
    files: Object.entries(report.src_stats)
      .map(([path, stats]) => ({ path, uncovered_lines: stats.violation_lines }))
      .sort((a, b) => (a.path < b.path ? -1 : 1)),
  };
}

/** covgate's figures in the shape of {@link diffCoverFigures}. */
export function covgateFigures(patch: PatchJson) {
  return {
    coverable: patch.coverable,
    covered: patch.covered,
    files: patch.files.map((f) => ({ path: f.path, uncovered_lines: f.uncovered_lines })),
  };
}

/**
 * Measures the patch against `main` with diff-cover on `report` and with covgate on
 * `options.covgateReport` (default: the same report), and expects the same figures: totals and,
 * per file, the lines not covered. `options.sourceRoot` is the folder the report's paths are
 * relative to (diff-cover's `--src-roots`, covgate's `--path-prefix`); `options.exclude` is passed
 * to diff-cover as `--exclude` (covgate reads its own from covgate.yml). Returns both answers.
 */
export async function expectDiffCoverFigures(
  repo: TestRepo,
  report: string,
  options: { covgateReport?: string; sourceRoot?: string; exclude?: string[] } = {},
): Promise<{ reference: DiffCoverReport; patch: PatchJson }> {
  const root = options.sourceRoot;
  const reference = await diffCover(repo, [report], 'main', [
    ...(root ? ['--src-roots', root] : []),
    ...(options.exclude ? ['--exclude', ...options.exclude] : []),
  ]);
  const patch = await covgatePatch(
    repo,
    [options.covgateReport ?? report],
    'main',
    root ? ['--path-prefix', root] : [],
  );
  expect(covgateFigures(patch)).toEqual(diffCoverFigures(reference));
  return { reference, patch };
}
