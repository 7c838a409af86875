import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { data, Evaluator, Lexer, Parser } from '@actions/expressions';
import type { FunctionDefinition } from '@actions/expressions/funcs/info';
import { truthy } from '@actions/expressions/result';
import { parse } from 'yaml';
import { run } from './processes.js';

// A GitHub Actions job from the docs, run step by step as the runner runs it: `if:` and
// `${{ }}` evaluated by GitHub's own expression library (@actions/expressions), `run:` steps
// by bash with the runner's files (GITHUB_OUTPUT per step, the step summary), `uses:` steps
// handed to the caller (actions/checkout, setup-node, the covgate action), which fakes what
// cannot run here. Steps after a failed one are skipped unless their `if:` says otherwise.

/** A step of a workflow job as written in YAML. */
export interface WorkflowStep {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
  'working-directory'?: string;
}

/** A job of a workflow as written in YAML. */
export interface WorkflowJob {
  'runs-on': string;
  permissions?: Record<string, string>;
  steps: WorkflowStep[];
}

/** A workflow file as written in YAML. */
export interface Workflow {
  name?: string;
  on: unknown;
  jobs: Record<string, WorkflowJob>;
}

/**
 * The workflows (YAML blocks with `jobs:`, with or without `on:`) of a Markdown page, in page
 * order.
 */
export function workflowsOf(markdown: string): Workflow[] {
  return [...markdown.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((match) => parse(match[1] as string) as unknown)
    .filter(
      (value): value is Workflow => typeof value === 'object' && value !== null && 'jobs' in value,
    );
}

/** The events a workflow's `on:` names. */
export function eventsOf(workflow: Workflow): string[] {
  const { on } = workflow;
  if (on === undefined) return [];
  if (typeof on === 'string') return [on];
  if (Array.isArray(on)) return on as string[];
  return Object.keys(on as object);
}

const CONTEXT_NAMES = ['github', 'env', 'vars', 'secrets', 'steps', 'job', 'runner', 'inputs'];

/** What a step's `if:` may ask of the job's state: `success()`, `failure()`, `always()`. */
function statusFunctions(jobFailed: boolean): Map<string, FunctionDefinition> {
  const of = (name: string, value: boolean): [string, FunctionDefinition] => [
    name,
    { name, minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(value) },
  ];
  return new Map([
    of('success', !jobFailed),
    of('failure', jobFailed),
    of('always', true),
    of('cancelled', false),
  ]);
}

/** Evaluates one expression (without `${{ }}`) against the contexts. */
export function evaluate(
  expression: string,
  contexts: Record<string, unknown>,
  jobFailed = false,
): data.ExpressionData {
  const functions = statusFunctions(jobFailed);
  const lexed = new Lexer(expression).lex();
  const parsed = new Parser(lexed.tokens, CONTEXT_NAMES, [...functions.values()]).parse();
  const dictionary = JSON.parse(JSON.stringify(contexts), data.reviver) as data.Dictionary;
  return new Evaluator(parsed, dictionary, functions).evaluate();
}

/** A template with `${{ }}` expressions replaced by their values, as the runner does. */
export function interpolate(template: string, contexts: Record<string, unknown>): string {
  return template.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expression: string) =>
    evaluate(expression.trim(), contexts).coerceString(),
  );
}

/** Whether a step runs: its `if:` (with or without `${{ }}`), `success()` when absent. */
export function stepRuns(
  step: WorkflowStep,
  contexts: Record<string, unknown>,
  jobFailed: boolean,
): boolean {
  const condition = step.if?.trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1') ?? 'success()';
  const mentionsStatus = /\b(success|failure|always|cancelled)\(\)/.test(condition);
  const effective = mentionsStatus ? condition : `success() && (${condition})`;
  return truthy(evaluate(effective, contexts, jobFailed));
}

/** What a step did. */
export interface StepResult {
  step: WorkflowStep;
  outcome: 'success' | 'failure' | 'skipped';
  code: number | null;
  stdout: string;
  stderr: string;
}

/** How a `uses:` step is run: the action's inputs (`with:`, evaluated) and the step's env. */
export type UsesHandler = (
  inputs: Record<string, string>,
  env: Record<string, string>,
) => Promise<{ code: number | null; stdout: string; stderr: string }>;

/** What a job needs from the test. */
export interface JobOptions {
  /** The workspace (`GITHUB_WORKSPACE`), as the checkout step leaves it. */
  workspace: string;
  /** The runner's variables: GITHUB_EVENT_NAME, GITHUB_SHA, ... and PATH. */
  runnerEnv: Record<string, string>;
  /** The expression contexts `github`, `secrets`, `vars` (steps and env are the job's). */
  contexts: {
    github: Record<string, unknown>;
    secrets: Record<string, string>;
    vars: Record<string, string>;
  };
  /** Runs the `uses:` steps, by action name without its `@ref` (`actions/checkout`). */
  uses: Record<string, UsesHandler>;
}

/**
 * Runs a job's steps in order. A step that fails fails the job; the following steps run only
 * when their `if:` asks for it. A `uses:` of an action the test does not handle throws.
 */
export async function runWorkflowJob(
  job: WorkflowJob,
  options: JobOptions,
): Promise<{ conclusion: 'success' | 'failure'; steps: StepResult[] }> {
  const stepsContext: Record<string, { outputs: Record<string, string>; outcome: string }> = {};
  const results: StepResult[] = [];
  let failed = false;
  for (const step of job.steps) {
    const contexts = { ...options.contexts, steps: stepsContext, env: {} };
    if (!stepRuns(step, contexts, failed)) {
      results.push({ step, outcome: 'skipped', code: null, stdout: '', stderr: '' });
      if (step.id) stepsContext[step.id] = { outputs: {}, outcome: 'skipped' };
      continue;
    }
    const env = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([name, value]) => [
        name,
        interpolate(String(value), contexts),
      ]),
    );
    let result: { code: number | null; stdout: string; stderr: string };
    let outputs: Record<string, string> = {};
    if (step.uses) {
      const action = step.uses.replace(/@.*$/, '');
      const handler = options.uses[action];
      if (!handler) throw new Error(`no handler for the step uses: ${step.uses}`);
      const inputs = Object.fromEntries(
        Object.entries(step.with ?? {}).map(([name, value]) => [
          name,
          interpolate(String(value), contexts),
        ]),
      );
      result = await handler(inputs, env);
    } else if (step.run !== undefined) {
      const runnerTemp = await mkdtemp(join(options.workspace, '..', 'step-'));
      const outputFile = join(runnerTemp, 'output');
      await writeFile(outputFile, '');
      const script = join(runnerTemp, 'step.sh');
      await writeFile(script, interpolate(step.run, contexts));
      const cwd = step['working-directory']
        ? join(options.workspace, step['working-directory'])
        : options.workspace;
      // The runner runs a bash step as `bash --noprofile --norc -eo pipefail {0}`.
      result = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
        cwd,
        env: { ...options.runnerEnv, GITHUB_OUTPUT: outputFile, ...env },
      });
      outputs = Object.fromEntries(
        (await readFile(outputFile, 'utf8'))
          .split('\n')
          .filter((line) => line.includes('='))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
    } else {
      throw new Error(`a step with neither uses: nor run: ${JSON.stringify(step)}`);
    }
    const outcome = result.code === 0 ? 'success' : 'failure';
    if (outcome === 'failure') failed = true;
    if (step.id) stepsContext[step.id] = { outputs, outcome };
    results.push({ step, outcome, ...result });
  }
  return { conclusion: failed ? 'failure' : 'success', steps: results };
}
