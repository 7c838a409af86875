import type { Gathered } from '../gather-reports.js';
import { type Io, paintFor } from '../io.js';
import { carriedLine } from '../parts/carried-parts.js';
import type { PartCounts } from '../parts/commit-view.js';
import type { JudgedExecution } from '../parts/pending.js';
import {
  buildVerdict,
  requiredBaselineFailure,
  stepSummary,
  type Verdict,
  verdictLine,
  verdictWords,
} from '../verdict.js';
import { feedbackLines } from './feedback-lines.js';
import type { PatchResult } from './measure-patch.js';
import { reportEntry, sourceFiles, unknownPaths } from './read-reports.js';
import { appendStepSummary } from './step-summary.js';

/** What a verdict is built from: the record the service answered and what was read. */
export interface VerdictInput {
  /** The run the service answered, with a verdict (a part's is once its commit is judged). */
  record: JudgedExecution;
  /** What was read, or for a part's commit what the service merged. */
  read: Gathered;
  /** A part's own counts, when `read` is its commit's merged report. */
  partCounts?: PartCounts;
  patch: PatchResult;
  baseBranch: string | undefined;
  failOnWarn: boolean;
  requireBaseline?: boolean;
}

/** The verdict of one posted run. */
export function verdictOf(input: VerdictInput): Verdict {
  const { record, read, patch } = input;
  return buildVerdict({
    summary: read.summary,
    branches: read.branches,
    reports: read.reports.map(reportEntry),
    sourceFiles: sourceFiles(read.files),
    unknownPaths: unknownPaths(read),
    baseBranch: input.baseBranch ?? 'main',
    patch: patch.patch,
    patchSkipped: patch.skipped,
    record,
    failOnWarn: input.failOnWarn,
    requireBaseline: input.requireBaseline === true,
    part: input.partCounts,
  });
}

/**
 * The print phase: the verdict of the record the service answered, on stdout (one line, or
 * the object with `--json`), why it fails on stderr, and the job summary on GitHub Actions.
 * Resolves with the verdict's exit code. A component's run (`besideWhole`) is printed with its
 * name first, and not as JSON (the whole run's object lists it).
 */
export async function printVerdict(
  input: VerdictInput & {
    json: boolean;
    /** What `--json` adds to the object (the policy, the components' verdicts). */
    extra?: Record<string, unknown>;
    /** The component of a run posted beside the whole repository's: printed as its label. */
    besideWhole?: string;
    /** `--verbose`: also what the service decided about the run's statuses and comment. */
    verbose?: boolean;
  },
  io: Io,
): Promise<number> {
  const verdict = verdictOf(input);
  const baseBranch = verdict.base_branch;
  const label = input.besideWhole === undefined ? '' : `component ${input.besideWhole}: `;
  if (input.json) {
    if (input.besideWhole === undefined)
      io.stdout.write(`${JSON.stringify({ ...verdict, ...input.extra })}\n`);
  } else {
    io.stdout.write(`${label}${verdictLine(verdict, paintFor(io.stdout, io.env))}\n`);
    io.stderr.write(`covgate: ${label}${verdictWords(verdict)}\n`);
    const carried = carriedLine(input.record);
    if (carried !== null) io.stderr.write(`covgate: ${label}${carried} (not run on this commit)\n`);
    if (verdict.outcome === 'warn' && verdict.exit_code === 1)
      io.stderr.write('covgate: the gate warned and --fail-on-warn is set\n');
    if (input.verbose) {
      for (const line of feedbackLines(input.record.feedback))
        io.stderr.write(`covgate: ${label}${line}\n`);
    }
  }
  const baselineRefusal = input.requireBaseline
    ? requiredBaselineFailure(input.record.baseline, baseBranch)
    : null;
  if (baselineRefusal) io.stderr.write(`covgate: ${label}${baselineRefusal}\n`);
  await appendStepSummary(io, stepSummary(verdict));
  return verdict.exit_code;
}
