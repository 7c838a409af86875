import { appendFile } from 'node:fs/promises';
import { detectContext } from '../ci.js';
import { readApiToken } from '../credentials.js';
import { dryRunOutput, executionsUrl } from '../dry-run.js';
import { EXIT, usageError } from '../errors.js';
import type { ReportSpec } from '../gather-reports.js';
import { refuseReportAsCommand } from '../glob-hint.js';
import { type Io, paintFor } from '../io.js';
import type { PathMap } from '../paths/path-map.js';
import type { ReportFormat } from '../reports/types.js';
import { runTestCommand, testCommandEnv } from '../runner.js';
import { clientFor, serviceError, serviceUrl } from '../service.js';
import { buildVerdict, stepSummary, verdictLine } from '../verdict.js';
import { readReports, reportEntry, sourceFile } from './gate-reports.js';

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
  url?: string;
  org?: string;
  json: boolean;
  failOnWarn: boolean;
  passEnv: string[];
}

const COMMIT = /^[0-9a-fA-F]{7,64}$/;

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
  const target = resolveTarget(options, io);
  const childEnv = command ? testCommandEnv(io.env, options.passEnv) : undefined;

  if (command && childEnv) {
    await refuseReportAsCommand(command, io.cwd);
    const code = await runTestCommand(command, {
      env: childEnv,
      cwd: io.cwd,
      stdout: options.json ? 'stderr' : 'stdout',
    });
    if (code !== 0) {
      io.stderr.write(`covgate: the test command exited with code ${code}; nothing was posted\n`);
      return code;
    }
  }

  const read = await readReports(options, io);
  const { summary } = read;
  const body = {
    repo: target.repo,
    branch: target.branch,
    coverage: summary.percent,
    ...(target.baseBranch ? { base_branch: target.baseBranch } : {}),
    ...(target.commit ? { commit: target.commit } : {}),
    ...(options.org ? { org: options.org } : {}),
    ...(options.warnThreshold !== undefined ? { warn_threshold: options.warnThreshold } : {}),
    ...(options.failThreshold !== undefined ? { fail_threshold: options.failThreshold } : {}),
  };
  if (options.dryRun) {
    io.stdout.write(
      dryRunOutput({ method: 'POST', url: executionsUrl(url), body }, read, options.json),
    );
    io.stderr.write('covgate: dry run: nothing was sent\n');
    return EXIT.ok;
  }

  const client = clientFor(io, url, token, version);
  let record: Awaited<ReturnType<typeof client.createExecution>>;
  try {
    record = await client.createExecution({ body });
  } catch (error) {
    throw serviceError(error, url);
  }

  const verdict = buildVerdict({
    summary,
    reports: read.reports.map(reportEntry),
    sourceFiles: read.files.map(sourceFile),
    baseBranch: target.baseBranch ?? 'main',
    record,
    failOnWarn: options.failOnWarn,
  });
  if (options.json) {
    io.stdout.write(`${JSON.stringify(verdict)}\n`);
  } else {
    io.stdout.write(`${verdictLine(verdict, paintFor(io.stdout, io.env))}\n`);
    if (verdict.outcome === 'warn' && verdict.exit_code === 1)
      io.stderr.write('covgate: the gate warned and --fail-on-warn is set\n');
  }
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

function resolveTarget(
  options: GateOptions,
  io: Io,
): { repo: string; branch: string; commit?: string; baseBranch?: string } {
  const detected =
    options.repo && options.branch && options.commit ? {} : detectContext(io.env, io.cwd);
  const repo = options.repo ?? detected.repo;
  const branch = options.branch ?? detected.branch;
  if (!repo) throw usageError('cannot tell the repository from CI or git: pass --repo NAME');
  if (!branch) throw usageError('cannot tell the branch from CI or git: pass --branch NAME');
  if (options.commit !== undefined && !COMMIT.test(options.commit)) {
    throw usageError(
      `--commit ${options.commit}: not a commit id (7 to 64 hexadecimal characters)`,
    );
  }
  // A detected commit that is not hex (some CI systems report other ids) is left out.
  const commit =
    options.commit ??
    (detected.commit && COMMIT.test(detected.commit) ? detected.commit : undefined);
  const baseBranch = options.baseBranch ?? detected.baseBranch;
  return { repo, branch, ...(commit ? { commit } : {}), ...(baseBranch ? { baseBranch } : {}) };
}
