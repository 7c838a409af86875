import { randomUUID } from 'node:crypto';
import type { Execution, ExecutionInput } from '@covgate/client';
import type { Gathered } from '../gather-reports.js';
import type { Io } from '../io.js';
import { type CommitView, commitViewOf } from '../parts/commit-view.js';
import { type JudgedExecution, judgedOrNull } from '../parts/pending.js';
import { askService } from '../service.js';
import { fitBody } from './fit-body.js';
import type { PatchResult } from './measure-patch.js';
import type { GateOptions } from './options.js';
import { awaitVerdict, printPending } from './part-run.js';
import { postRun } from './post-run.js';
import { printVerdict, verdictOf } from './print-verdict.js';
import { allowUnreachable, type RunNotPosted } from './unreachable.js';

/** One run to post: the whole repository's (`name` null) or a component's. */
export interface RunToPost {
  name: string | null;
  read: Gathered;
  patch: PatchResult;
  body: ExecutionInput;
}

/**
 * The post and print phases of `covgate run`/`report`: posts each run (the whole repository's
 * first), waits for a part's merged verdict when asked, prints the verdicts and resolves with
 * the highest exit code.
 */
export async function deliverRuns(
  runs: readonly [RunToPost, ...RunToPost[]],
  input: {
    options: GateOptions;
    url: string;
    token: string;
    version: string;
    part: string;
    baseBranch: string | undefined;
    /** What `--json` adds to the whole run's object (the policy). */
    extra: Record<string, unknown>;
  },
  io: Io,
): Promise<number> {
  const { options, url, token, version } = input;
  // One key per run, made before its first attempt: a run kept for `covgate flush` is sent
  // again with it, so a run the service stored without its answer arriving is stored once.
  const keys = runs.map(() => randomUUID());
  const answers: { run: RunToPost; record: Execution }[] = [];
  for (const [index, run] of runs.entries()) {
    const idempotencyKey = keys[index] as string;
    const posted = await postRun(
      { ...options, url, token, version, body: run.body, idempotencyKey },
      io,
    );
    if ('unavailable' in posted) {
      // The service is away: this run and those after it are kept, none is tried again.
      const notPosted: RunNotPosted[] = runs.slice(index).map((r, offset) => {
        const fitted = offset === 0 ? posted : fitBody(r.body);
        return {
          name: r.name,
          body: fitted.body,
          gzip: fitted.gzip,
          idempotencyKey: keys[index + offset] as string,
          patch: r.patch.patch,
        };
      });
      return allowUnreachable(io, {
        message: posted.unavailable,
        runs: notPosted as [RunNotPosted, ...RunNotPosted[]],
        url,
        version,
        repoRoot: run.read.repoRoot,
        json: options.json,
      });
    }
    answers.push({ run, record: posted.record });
  }
  // A part's commit may still wait for other parts: exit 0 saying so, or wait with --wait.
  const pending = answers.filter((answer) => answer.record.outcome === 'pending');
  if (pending.length > 0 && !options.wait) {
    return printPending(
      pending.map((answer) => answer.record),
      input.part,
      options.json,
      io,
    );
  }
  const records: { run: RunToPost; record: JudgedExecution; view: CommitView | null }[] = [];
  for (const { run, record } of answers) {
    const judged =
      judgedOrNull(record) ??
      (await awaitVerdict(
        { ...options, record, part: input.part, wait: options.wait ?? 0, url, token, version },
        io,
      ));
    if (typeof judged === 'number') return judged;
    records.push({ run, record: judged, view: await mergedView(judged, run, input, io) });
  }
  const verdictInput = (r: (typeof records)[number]) => ({
    ...options,
    record: r.record,
    read: r.view?.read ?? r.run.read,
    ...(r.view ? { partCounts: r.view.part } : {}),
    patch: r.run.patch,
    baseBranch: input.baseBranch,
  });
  const [first, ...rest] = records as [(typeof records)[number], ...typeof records];
  const componentVerdicts = rest.map((r) => ({
    component: r.run.name,
    ...verdictOf(verdictInput(r)),
  }));
  let exitCode = await printVerdict(
    {
      ...verdictInput(first),
      extra: {
        ...input.extra,
        ...(componentVerdicts.length > 0 ? { components: componentVerdicts } : {}),
      },
    },
    io,
  );
  for (const r of rest) {
    const code = await printVerdict({ ...verdictInput(r), besideWhole: r.run.name as string }, io);
    exitCode = Math.max(exitCode, code);
  }
  return exitCode;
}

/** A part's judged commit, read back as the service merged it (see {@link commitViewOf}). */
function mergedView(
  record: JudgedExecution,
  run: RunToPost,
  input: { options: GateOptions; url: string; token: string; version: string; part: string },
  io: Io,
): Promise<CommitView | null> {
  return askService(
    io,
    input.url,
    input.token,
    input.version,
    (client) => commitViewOf(client, record, run.read, input.part),
    input.options.timeout,
  );
}
