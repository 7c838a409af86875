import type { ExecutionInput } from '@covgate/client';
import { EXIT } from '../errors.js';
import type { Io } from '../io.js';
import type { MeasuredPatch } from '../patch/measured-patch.js';
import { patchRule } from '../patch/patch-rule.js';
import { keepUnsent, shownPath, UNSENT_VERSION, unsentDir } from '../unsent/unsent-runs.js';
import { appendStepSummary } from './step-summary.js';

/**
 * The patch target the service applies when neither the run nor the repository names one
 * (core's `DEFAULT_PATCH_TARGET`): what the CLI checks against when the service is away.
 */
export const SERVICE_PATCH_TARGET = 80;

/** A run the service did not take: its body as sent, its key and its measured patch. */
export interface RunNotPosted {
  /** The component, null for the whole repository's run. */
  name: string | null;
  body: ExecutionInput;
  gzip: boolean;
  idempotencyKey: string;
  patch: MeasuredPatch | null;
}

/** The patch rule as the CLI applied it without the service. */
export interface LocalPatchRule {
  covered: number;
  coverable: number;
  percent: number | null;
  target: number;
  /** `run`: the flag's or policy's; `default`: the service's default (the repository's was not read). */
  target_source: 'run' | 'default';
  outcome: 'pass' | 'fail';
  /** The policy makes the patch rule report only: its `fail` does not fail the run. */
  informational: boolean;
}

/** What covgate prints with `--json` when `--allow-unreachable` let an unavailable service pass. */
export interface NotPosted {
  posted: false;
  /** Why: the same line as on stderr, without `covgate: `. */
  error: string;
  repo: string;
  branch: string;
  coverage: number;
  /** The files the runs were kept in, for `covgate flush`. */
  kept: string[];
  idempotency_key: string;
  /** The patch rule, applied by the CLI; null for a run without a patch. */
  patch: LocalPatchRule | null;
  /** The project rule (delta thresholds, project target) needs the baseline: never evaluated here. */
  project: 'not evaluated';
  exit_code: number;
}

/** The patch rule of a run, applied here: the run's target, else the service's default. */
export function localPatchRule(
  patch: MeasuredPatch | null,
  body: ExecutionInput,
): LocalPatchRule | null {
  if (patch === null) return null;
  const target = body.patch_target ?? SERVICE_PATCH_TARGET;
  return {
    covered: patch.covered,
    coverable: patch.coverable,
    percent: patch.percent,
    target,
    target_source: body.patch_target === undefined ? 'default' : 'run',
    outcome: patchRule(patch, target),
    informational: body.patch_informational === true,
  };
}

/**
 * `--allow-unreachable` after the service was unavailable: keeps each run not posted in the
 * unsent folder (`covgate flush` posts them later with the same idempotency key), applies the
 * patch rule here, and says that the project rule was not evaluated. Prints the verdict of
 * the whole repository's run on stdout (with `--json` a {@link NotPosted} object), notes it in
 * `GITHUB_STEP_SUMMARY`, and resolves with 1 when the patch rule fails (and is not
 * informational), else 0.
 */
export async function allowUnreachable(
  io: Io,
  input: {
    message: string;
    runs: readonly [RunNotPosted, ...RunNotPosted[]];
    url: string;
    version: string;
    repoRoot: string;
    json: boolean;
    now?: () => Date;
  },
): Promise<number> {
  const say = (line: string) => io.stderr.write(`covgate: ${line}\n`);
  say(`warning: ${input.message}; the run was not posted (--allow-unreachable)`);
  const dir = unsentDir(io.env, input.repoRoot);
  const kept: string[] = [];
  const keptAt = (input.now?.() ?? new Date()).toISOString();
  for (const run of input.runs) {
    const file = await keepUnsent(
      dir,
      {
        covgate_unsent: UNSENT_VERSION,
        idempotency_key: run.idempotencyKey,
        url: input.url,
        cli_version: input.version,
        kept_at: keptAt,
        gzip: run.gzip,
        run: run.body,
      },
      !io.env.COVGATE_UNSENT_DIR,
    );
    kept.push(shownPath(file, io.cwd));
  }
  say(
    `kept ${kept.join(', ')}: covgate flush posts ${kept.length === 1 ? 'it' : 'them'} with the same idempotency key once the service answers`,
  );
  say(
    'not evaluated: the project rule (delta thresholds and project target), which needs the service; it judges the run when it is posted',
  );
  let exitCode: number = EXIT.ok;
  const [whole] = input.runs;
  const wholeRule = localPatchRule(whole.patch, whole.body);
  for (const run of input.runs) {
    const rule = localPatchRule(run.patch, run.body);
    const label = run.name === null || run === whole ? '' : `component ${run.name}: `;
    if (rule?.outcome === 'fail' && !rule.informational) exitCode = EXIT.gateFailed;
    if (!input.json) io.stdout.write(`${label}${unreachableLine(run.body, rule)}\n`);
  }
  if (input.json) {
    const out: NotPosted = {
      posted: false,
      error: input.message,
      repo: whole.body.repo,
      branch: whole.body.branch,
      coverage: whole.body.coverage,
      kept,
      idempotency_key: whole.idempotencyKey,
      patch: wholeRule,
      project: 'not evaluated',
      exit_code: exitCode,
    };
    io.stdout.write(`${JSON.stringify(out)}\n`);
  }
  await appendStepSummary(io, summaryOf(input.message, whole.body, wholeRule));
  return exitCode;
}

/**
 * The verdict line without the service: the patch rule's outcome when the run has a patch,
 * e.g. `fail web@feature: coverage 57.14%, patch 25.00% (1 of 4 lines, target 80.00%)
 * checked here; project rule not evaluated (service unavailable)`.
 */
export function unreachableLine(body: ExecutionInput, rule: LocalPatchRule | null): string {
  const what = `${body.repo}@${body.branch}: coverage ${body.coverage.toFixed(2)}%`;
  const project = 'project rule not evaluated (service unavailable)';
  if (rule === null) return `${what}, no patch; ${project}`;
  const outcome = rule.outcome === 'fail' && rule.informational ? 'pass' : rule.outcome;
  return `${outcome} ${what}, ${patchText(rule)} checked here; ${project}`;
}

function patchText(rule: LocalPatchRule): string {
  const target = `target ${rule.target.toFixed(2)}%${rule.target_source === 'default' ? ", the service's default" : ''}${rule.informational ? ', informational' : ''}`;
  if (rule.percent === null) return `patch: no coverable line changed (${target})`;
  return `patch ${rule.percent.toFixed(2)}% (${rule.covered} of ${rule.coverable} lines, ${target})`;
}

function summaryOf(message: string, body: ExecutionInput, rule: LocalPatchRule | null): string {
  const patch =
    rule === null
      ? 'The run has no patch: nothing was checked here.'
      : `Patch rule, checked by the CLI: ${patchText(rule)}: **${rule.outcome}**${rule.informational ? ' (informational)' : ''}.`;
  return `### ⚠️ covgate: service unavailable, project rule not evaluated\n\n${message.replace(/[\r\n]/g, ' ')}: the run was not posted (\`--allow-unreachable\`); \`covgate flush\` posts it later.\n\n${patch}\n\n\`${body.repo}\` on \`${body.branch}\`, coverage ${body.coverage.toFixed(2)}%.\n\n`;
}
