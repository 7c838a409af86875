import type { Execution } from '@covgate/client';
import type { Gathered } from '../gather-reports.js';
import { type Io, paintFor } from '../io.js';
import {
  buildVerdict,
  requiredBaselineFailure,
  stepSummary,
  verdictLine,
  verdictWords,
} from '../verdict.js';
import type { PatchResult } from './measure-patch.js';
import { reportEntry, sourceFiles, unknownPaths } from './read-reports.js';
import { appendStepSummary } from './step-summary.js';

/**
 * The print phase: the verdict of the record the service answered, on stdout (one line, or
 * the object with `--json`), why it fails on stderr, and the job summary on GitHub Actions.
 * Resolves with the verdict's exit code.
 */
export async function printVerdict(
  input: {
    record: Execution;
    read: Gathered;
    patch: PatchResult;
    baseBranch: string | undefined;
    failOnWarn: boolean;
    requireBaseline?: boolean;
    json: boolean;
    /** What `--json` says of the policy (see `policyJson`). */
    policy?: Record<string, unknown>;
  },
  io: Io,
): Promise<number> {
  const { record, read, patch } = input;
  const baseBranch = input.baseBranch ?? 'main';
  const verdict = buildVerdict({
    summary: read.summary,
    branches: read.branches,
    reports: read.reports.map(reportEntry),
    sourceFiles: sourceFiles(read.files),
    unknownPaths: unknownPaths(read),
    baseBranch,
    patch: patch.patch,
    patchSkipped: patch.skipped,
    record,
    failOnWarn: input.failOnWarn,
    requireBaseline: input.requireBaseline === true,
  });
  if (input.json) {
    io.stdout.write(`${JSON.stringify({ ...verdict, ...input.policy })}\n`);
  } else {
    io.stdout.write(`${verdictLine(verdict, paintFor(io.stdout, io.env))}\n`);
    io.stderr.write(`covgate: ${verdictWords(verdict)}\n`);
    if (verdict.outcome === 'warn' && verdict.exit_code === 1)
      io.stderr.write('covgate: the gate warned and --fail-on-warn is set\n');
  }
  const baselineRefusal = input.requireBaseline
    ? requiredBaselineFailure(record.baseline, baseBranch)
    : null;
  if (baselineRefusal) io.stderr.write(`covgate: ${baselineRefusal}\n`);
  await appendStepSummary(io, stepSummary(verdict));
  return verdict.exit_code;
}
