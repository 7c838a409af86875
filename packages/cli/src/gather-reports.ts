import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { posix, resolve } from 'node:path';
import { usageError } from './errors.js';
import { type CheckoutFiles, listCheckoutFiles } from './paths/checkout-files.js';
import { findGoModules, type GoModule, goFilePath } from './paths/go-modules.js';
import {
  cleanPath,
  isAbsolutePath,
  isPlainRelative,
  joinPath,
  projectRootOf,
  relativeTo,
  repoPath,
  repoPather,
} from './paths/normalise.js';
import { applyPathMaps, type PathMap } from './paths/path-map.js';
import { findRepoRoot } from './paths/repo-root.js';
import { type BranchSummary, summariseBranches } from './reports/branches.js';
import { type CoverageSummary, mergeFiles, type PathClash, summarise } from './reports/merge.js';
import { readReport } from './reports/read-report.js';
import {
  type FileCoverage,
  type ParsedReport,
  ReportError,
  type ReportFormat,
} from './reports/types.js';

/** One `--report PATH`, with the `--path-prefix` given after it. */
export interface ReportSpec {
  /** As the user wrote it (relative to the working folder, or absolute). */
  path: string;
  /** The folder the report's relative paths are relative to, overriding covgate's guess. */
  prefix?: string;
}

/** A report as read: its counts and where its relative paths were taken from. */
export interface ReportEntry {
  path: string;
  format: ReportFormat;
  /** The folder its relative paths were resolved against, repository-relative (`.` the root). */
  root: string;
  files: number;
  covered: number;
  coverable: number;
}

/** A report's files with covgate's paths, and the paths the report wrote. */
export interface NormalisedReport extends ReportEntry {
  parsed: ParsedReport;
  /** `raw[i]` is the path the report wrote for `parsed.files[i]`. */
  raw: string[];
  /** Files left outside the repository (absolute paths no `--path-map` rewrote). */
  outside: string[];
  /** False when its paths are known to be distinct (each parser lists a path once). */
  mayMeet: boolean;
  /** Files inside the repository that are not in the checkout (not checked outside git). */
  unknown: UnknownPath[];
}

/** A file a report names inside the repository that the checkout does not have. */
export interface UnknownPath {
  /** covgate's path of it, repository-relative. */
  path: string;
  /** The report that names it, as given. */
  report: string;
  /** The checkout's file whose path differs in case only; null when there is none. */
  checkout: string | null;
}

/** Everything read: the reports, the merged files (in the order first read) and their totals. */
export interface Gathered {
  repoRoot: string;
  reports: NormalisedReport[];
  files: FileCoverage[];
  summary: CoverageSummary;
  /** The branch totals of the files that carry branch data; undefined: no branch data. */
  branches: BranchSummary | undefined;
  clashes: PathClash[];
  /** The files no report's path names in the checkout, each path once (first report's). */
  unknown: UnknownPath[];
}

/**
 * Reads every report, makes each file's path repository-relative (see docs/cli.md, "Paths"),
 * applies the `--path-map`s, checks the paths against the git checkout (listed once) and
 * merges the files by path.
 *
 * @throws CliError (exit 2) naming the report that cannot be read or parsed
 */
export async function gatherReports(options: {
  reports: readonly ReportSpec[];
  format: ReportFormat | 'auto';
  pathMaps: readonly PathMap[];
  cwd: string;
}): Promise<Gathered> {
  const repoRoot = await findRepoRoot(options.cwd);
  const checkout = await listCheckoutFiles(repoRoot);
  const reports: NormalisedReport[] = [];
  for (const spec of options.reports) {
    let parsed: ParsedReport;
    try {
      parsed = await readReport(resolve(options.cwd, spec.path), options.format);
    } catch (error) {
      // Name the file as the user wrote it, not its absolute form.
      if (error instanceof ReportError) throw usageError(`${spec.path}: ${error.problem}`);
      throw error;
    }
    reports.push(await normalise(spec, parsed, repoRoot, { ...options, checkout }));
  }
  const only = reports.length === 1 ? reports[0] : undefined;
  // One report whose paths stay distinct needs no merging (and a large one saves a map).
  const { files, clashes } =
    only && !only.mayMeet
      ? { files: only.parsed.files, clashes: [] }
      : mergeFiles(reports.map((r) => r.parsed));
  const unknown = new Map<string, UnknownPath>();
  for (const report of reports)
    for (const u of report.unknown) if (!unknown.has(u.path)) unknown.set(u.path, u);
  return {
    repoRoot,
    reports,
    files,
    summary: summarise(files),
    branches: summariseBranches(files),
    clashes,
    unknown: [...unknown.values()],
  };
}

async function normalise(
  spec: ReportSpec,
  parsed: ParsedReport,
  repoRoot: string,
  options: { pathMaps: readonly PathMap[]; cwd: string; checkout: CheckoutFiles | undefined },
): Promise<NormalisedReport> {
  const file = cleanPath(await real(resolve(options.cwd, spec.path)));
  const prefix =
    spec.prefix === undefined
      ? undefined
      : cleanPath(await real(resolve(options.cwd, spec.prefix)));
  const projectRoot = projectRootOf(file, repoRoot);
  const base = prefix ?? projectRoot;
  // Cobertura names the folders its file names are relative to (relative ones from the project).
  const sources =
    prefix === undefined ? parsed.sources?.map((s) => joinPath(projectRoot, s)) : undefined;
  const pathers = new Map<string, (path: string) => string>();
  const pather = (folder: string) => {
    let p = pathers.get(folder);
    if (!p) {
      p = repoPather(folder, repoRoot);
      pathers.set(folder, p);
    }
    return p;
  };
  const baseOf = (path: string): string => {
    if (sources === undefined || sources.length === 0) return base;
    if (sources.length === 1) return sources[0] as string;
    return sources.find((s) => existsSync(joinPath(s, path))) ?? (sources[0] as string);
  };
  let modules: GoModule[] = [];
  if (parsed.format === 'go')
    modules = await findGoModules(prefix ?? posix.dirname(file), repoRoot);
  const toRepo = (path: string) => {
    if (parsed.format === 'go' && !isAbsolutePath(path)) {
      const inModule = goFilePath(cleanPath(path), modules);
      // An import path of no module found is no path in this checkout: kept as written.
      return inModule === undefined ? cleanPath(path) : repoPath(inModule, base, repoRoot);
    }
    return pather(isAbsolutePath(path) ? base : baseOf(path))(path);
  };
  const raw: string[] = [];
  const outside: string[] = [];
  const unknown: UnknownPath[] = [];
  // Distinct plain relative paths from one base stay distinct; anything else may meet another.
  let mayMeet = (sources?.length ?? 0) > 1;
  const { pathMaps, checkout } = options;
  const mapped = (path: string) => (pathMaps.length > 0 ? applyPathMaps(path, pathMaps) : path);
  let fromRepoRoot = 0;
  let found = 0;
  // Files found nowhere, with their path from the repository root: that spelling is kept when
  // the report's other files were all found from the root.
  const missing: { file: FileCoverage; fromRoot: string }[] = [];
  const files = parsed.files;
  for (const f of files) {
    raw.push(f.path);
    const normal = toRepo(f.path);
    let path = mapped(normal);
    if (!mayMeet && (path !== normal || !isPlainRelative(f.path))) mayMeet = true;
    if (isAbsolutePath(path)) outside.push(path);
    else if (checkout) {
      found++;
      if (!checkout.has(path)) {
        // Not below the guessed root: the same relative path from the repository root (a
        // downloaded artifact's `coverage-2/lcov.info` of a run at the root). A --path-prefix
        // said where the paths are, so it is not second-guessed.
        const fromRoot =
          spec.prefix === undefined && !isAbsolutePath(f.path) ? mapped(cleanPath(f.path)) : path;
        if (fromRoot !== path && checkout.has(fromRoot)) {
          path = fromRoot;
          fromRepoRoot++;
          mayMeet = true;
        } else {
          found--;
          missing.push({ file: f, fromRoot });
        }
      }
    }
    // In place: the parsed report is covgate's own, and a copy of 200 000 files costs.
    f.path = path;
  }
  // Every file found was found from the repository root: that is the report's root.
  const allFromRoot = fromRepoRoot > 0 && fromRepoRoot === found;
  for (const { file, fromRoot } of missing) {
    const other = allFromRoot ? file.path : fromRoot;
    if (allFromRoot) file.path = fromRoot;
    const checkoutPath = checkout?.caseOf(file.path) ?? checkout?.caseOf(other) ?? null;
    unknown.push({ path: file.path, report: spec.path, checkout: checkoutPath });
  }
  const totals = summarise(files);
  // A Go report's root is the folder of the go.mod it sits under (go.work may add others).
  const module = modules
    .filter((m) => relativeTo(m.folder, prefix ?? posix.dirname(file)) !== undefined)
    .sort((a, b) => b.folder.length - a.folder.length)[0];
  const rootFolder = allFromRoot ? repoRoot : (module?.folder ?? sources?.[0] ?? base);
  const root = relativeTo(repoRoot, rootFolder);
  return {
    path: spec.path,
    format: parsed.format,
    root: root === '' ? '.' : (root ?? rootFolder),
    files: totals.files,
    covered: totals.covered,
    coverable: totals.coverable,
    parsed,
    raw,
    outside,
    mayMeet,
    unknown,
  };
}

async function real(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path;
  }
}
