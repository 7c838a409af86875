import { appendFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { detectContext } from '../ci.js';
import { readApiToken } from '../credentials.js';
import { dryRunOutput, executionsUrl } from '../dry-run.js';
import { CliError, EXIT } from '../errors.js';
import type { ReportSpec } from '../gather-reports.js';
import { refuseReportAsCommand } from '../glob-hint.js';
import { type Io, paintFor } from '../io.js';
import { fileEntries, withPatchCounts } from '../patch/file-entries.js';
import type { PathMap } from '../paths/path-map.js';
import type { ReportFormat } from '../reports/types.js';
import {
  describeEnd,
  exitCodeOfEnd,
  runTestCommand,
  succeeded,
  testCommandEnv,
} from '../runner.js';
import { clientFor, isUnavailable, serviceError, serviceUrl } from '../service.js';
import { resolveTarget } from '../target.js';
import { allowUnreachable } from '../unreachable.js';
import { buildVerdict, requiredBaselineFailure, stepSummary, verdictLine } from '../verdict.js';
import { measurePatch } from './gate-patch.js';
import { readReports, reportEntry, sourceFiles } from './gate-reports.js';

/** A body longer than this (64 KiB, the JSON limit of other routes) is sent gzip-compressed. */
const GZIP_ABOVE_BYTES = 64 * 1024;

/** The options of `covgate run` and `covgate report`. */
export interface GateOptions {
  report: ReportSpec[];
  pathMap: PathMap[];
  dryRun: boolean;
  verbose: boolean;
  format: ReportFormat | 'auto';
  repo?: string;
  branch?: string;
  commit?: string;
  baseBranch?: string;
  warnThreshold?: number;
  failThreshold?: number;
  /** The patch coverage below which the run fails (the service's patch rule; default its own). */
  patchTarget?: number;
  /** The monorepo component the run covers; baselines and badges are per component. */
  component?: string;
  url?: string;
  org?: string;
  json: boolean;
  failOnWarn: boolean;
  /** Exit 1 when the server compared the run with no baseline. */
  requireBaseline?: boolean;
  passEnv: string[];
  /** Seconds each attempt at the service may take (default: `COVGATE_TIMEOUT`, else 30). */
  timeout?: number;
  /** Exit 0 with a warning when the service is unavailable. */
  allowUnreachable?: boolean;
}

/**
 * `covgate run` (with `command`) and `covgate report` (without): check the options, run the
 * test command with a filtered environment, read and merge the reports, post the run, print
 * the verdict. Resolves with the exit code.
 */
export async function gate(
  options: GateOptions,
  io: Io,
  version: string,
  command?: string[],
): Promise<number> {
  const url = serviceUrl(options.url, io.env);
  // A dry run sends nothing, so it needs no token.
  const token = options.dryRun ? '' : await readApiToken(io.env);
  const { target, warnings } = resolveTarget(options, () => detectContext(io.env, io.cwd));
  for (const warning of warnings) io.stderr.write(`covgate: warning: ${warning}\n`);
  const childEnv = command ? testCommandEnv(io.env, options.passEnv) : undefined;

  if (command && childEnv) {
    await refuseReportAsCommand(command, io.cwd);
    const end = await runTestCommand(command, {
      env: childEnv,
      cwd: io.cwd,
      stdout: options.json ? 'stderr' : 'stdout',
    });
    if (!succeeded(end)) {
      io.stderr.write(`covgate: ${describeEnd(end)}; nothing was posted\n`);
      return exitCodeOfEnd(end);
    }
  }

  const read = await readReports(options, io);
  const { summary } = read;
  const patch = await measurePatch(
    {
      baseBranch: target.baseBranch,
      branch: target.branch,
      read,
      patchTarget: options.patchTarget,
      json: options.json,
      verbose: options.verbose,
    },
    io,
  );
  const measured = patch.patch;
  const body = {
    repo: target.repo,
    branch: target.branch,
    coverage: summary.percent,
    ...(target.baseBranch ? { base_branch: target.baseBranch } : {}),
    ...(target.commit ? { commit: target.commit } : {}),
    ...(options.org ? { org: options.org } : {}),
    ...(options.warnThreshold !== undefined ? { warn_threshold: options.warnThreshold } : {}),
    ...(options.failThreshold !== undefined ? { fail_threshold: options.failThreshold } : {}),
    ...(options.component ? { component: options.component } : {}),
    ...(target.pullRequest !== undefined ? { pull_request: target.pullRequest } : {}),
    ...(target.repoUrl ? { repo_url: target.repoUrl } : {}),
    ...(measured
      ? {
          base_commit: measured.merge_base,
          patch: { covered: measured.covered, coverable: measured.coverable },
          ...(options.patchTarget !== undefined ? { patch_target: options.patchTarget } : {}),
        }
      : {}),
    files: fileEntries(withPatchCounts(sourceFiles(read.files), measured?.files ?? [])).entries,
  };
  if (options.dryRun) {
    io.stdout.write(
      dryRunOutput({ method: 'POST', url: executionsUrl(url), body }, read, patch, options.json),
    );
    io.stderr.write('covgate: dry run: nothing was sent\n');
    return EXIT.ok;
  }

  const client = clientFor(io, url, token, version, options.timeout);
  let record: Awaited<ReturnType<typeof client.createExecution>>;
  try {
    // A long per-file list goes gzip-compressed; a short body stays plain JSON, which every
    // covgate service reads.
    const gzip = JSON.stringify(body).length > GZIP_ABOVE_BYTES ? gzipSync : undefined;
    record = await client.createExecution({ body, ...(gzip ? { gzip } : {}) });
  } catch (error) {
    const failure = serviceError(error, url);
    if (options.allowUnreachable && isUnavailable(error) && failure instanceof CliError) {
      return allowUnreachable(io, {
        message: failure.message,
        repo: target.repo,
        branch: target.branch,
        coverage: summary.percent,
        json: options.json,
      });
    }
    throw failure;
  }

  const baseBranch = target.baseBranch ?? 'main';
  const verdict = buildVerdict({
    summary,
    reports: read.reports.map(reportEntry),
    sourceFiles: sourceFiles(read.files),
    baseBranch,
    patch: patch.patch,
    patchSkipped: patch.skipped,
    record,
    failOnWarn: options.failOnWarn,
    requireBaseline: options.requireBaseline === true,
  });
  const baselineRefusal = options.requireBaseline
    ? requiredBaselineFailure(record.baseline, baseBranch)
    : null;
  if (options.json) {
    io.stdout.write(`${JSON.stringify(verdict)}\n`);
  } else {
    io.stdout.write(`${verdictLine(verdict, paintFor(io.stdout, io.env))}\n`);
    if (verdict.outcome === 'warn' && verdict.exit_code === 1)
      io.stderr.write('covgate: the gate warned and --fail-on-warn is set\n');
  }
  if (baselineRefusal) io.stderr.write(`covgate: ${baselineRefusal}\n`);
  const summaryFile = io.env.GITHUB_STEP_SUMMARY;
  if (summaryFile) {
    try {
      await appendFile(summaryFile, stepSummary(verdict));
    } catch (error) {
      io.stderr.write(
        `covgate: GITHUB_STEP_SUMMARY could not be written (${(error as NodeJS.ErrnoException).code ?? 'error'})\n`,
      );
    }
  }
  return verdict.exit_code;
}
