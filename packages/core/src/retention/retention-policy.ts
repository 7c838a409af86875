import type { RetentionRun } from '../storage/store.js';

// Which runs keep their detail (docs/decisions/operations.md, "Retention of runs' detail").
// Pure: the runs of one repository in, the ids whose detail may go out.

/**
 * How long runs keep their per-file lists, line data and part uploads. A run keeps them while
 * any rule keeps it: younger than `days`, or among the newest `runsPerBranch` of its branch;
 * whatever the setting, each branch's latest run and latest passing run, the baselines of
 * those runs (so of every open pull request's latest run) and commits still waiting for parts
 * keep theirs. Both null: retention is off and nothing is pruned.
 */
export type RetentionPolicy = {
  /** Runs younger than this many days keep their detail; null: age keeps none. */
  days: number | null;
  /** The newest this many runs of each branch (per component) keep theirs; null: none. */
  runsPerBranch: number | null;
};

const DAY_MS = 86_400_000;

/** True when the policy prunes anything (one of its settings is given). */
export const retentionEnabled = (policy: RetentionPolicy): boolean =>
  policy.days !== null || policy.runsPerBranch !== null;

/** A component's branch, or a commit of one: `''` stands for no component. */
const keyOf = (...parts: (string | null)[]): string => JSON.stringify(parts.map((p) => p ?? ''));

const newestFirst = (a: RetentionRun, b: RetentionRun): number =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The runs of each component's branch, newest first. */
function byBranch(runs: readonly RetentionRun[]): RetentionRun[][] {
  const groups = new Map<string, RetentionRun[]>();
  for (const run of [...runs].sort(newestFirst)) {
    const key = keyOf(run.component, run.branch);
    const group = groups.get(key);
    if (group) group.push(run);
    else groups.set(key, [run]);
  }
  return [...groups.values()];
}

/** The runs the policy's own rules keep: age, count, each branch's latest, pending commits. */
function keptByRule(
  runs: readonly RetentionRun[],
  policy: RetentionPolicy,
  now: Date,
): Set<RetentionRun> {
  const kept = new Set<RetentionRun>();
  for (const branch of byBranch(runs)) {
    const latest = branch.find((run) => run.outcome !== 'skipped');
    const latestPassing = branch.find((run) => run.outcome === 'pass' || run.outcome === 'warn');
    if (latest) kept.add(latest);
    if (latestPassing) kept.add(latestPassing);
    for (const run of branch.slice(0, policy.runsPerBranch ?? 0)) kept.add(run);
  }
  const youngest = policy.days === null ? null : now.getTime() - policy.days * DAY_MS;
  for (const run of runs) {
    if (run.outcome === 'pending') kept.add(run);
    if (youngest !== null && run.createdAt.getTime() > youngest) kept.add(run);
  }
  return kept;
}

/**
 * The ids of the runs of one repository whose detail the policy prunes: those holding detail
 * that no rule keeps. A kept run keeps its baseline and the base branch's runs at its merge
 * base too (a later push of its pull request is compared with them and carries their parts
 * forward); that reaches one level, not the baseline's own baseline. Nothing when the policy
 * is off.
 */
export function runsToPrune(
  runs: readonly RetentionRun[],
  policy: RetentionPolicy,
  now: Date,
): string[] {
  if (!retentionEnabled(policy)) return [];
  const kept = keptByRule(runs, policy, now);
  const keptIds = new Set<string>();
  const keptCommits = new Set<string>();
  for (const run of kept) {
    keptIds.add(run.id);
    if (run.baselineId !== null) keptIds.add(run.baselineId);
    if (run.baseBranch !== null && run.baseCommit !== null) {
      keptCommits.add(keyOf(run.component, run.baseBranch, run.baseCommit));
    }
  }
  return runs
    .filter(
      (run) =>
        run.detail &&
        !keptIds.has(run.id) &&
        (run.commit === null || !keptCommits.has(keyOf(run.component, run.branch, run.commit))),
    )
    .map((run) => run.id);
}
