import type { CovgateClient, Execution } from '@covgate/client';
import { type Finding, fail, pass, warn } from './check.js';

/** What the base branch check looks for: a repository's runs on one branch. */
export interface BaseBranchTarget {
  org: string;
  repo: string;
  branch: string;
  baseBranch: string;
  /** The component the run covers; null: the runs without one. */
  component: string | null;
}

const FIRST_RUN =
  'post a run from the base branch first: run covgate on pushes to it (on: push: branches: [<base>])';

/**
 * Whether the base branch has a run a change can be compared with: the service takes the base
 * branch's run at the merge base, else its latest `pass` or `warn` run (a failed run is never a
 * baseline), of the same component.
 */
export async function checkBaseBranch(
  client: CovgateClient,
  target: BaseBranchTarget,
): Promise<Finding> {
  const query = {
    org: target.org,
    repo: target.repo,
    branch: target.baseBranch,
    component: target.component ?? '',
    limit: 1,
  };
  const [all, passed, warned] = await Promise.all([
    client.listExecutions(query),
    client.listExecutions({ ...query, outcome: 'pass' }),
    client.listExecutions({ ...query, outcome: 'warn' }),
  ]);
  const where = `${target.repo}${target.component ? ` (component ${target.component})` : ''} on ${target.baseBranch}`;
  const fix = FIRST_RUN.replace('<base>', target.baseBranch);
  const onBase = target.branch === target.baseBranch;
  if (all.total === 0) {
    if (onBase)
      return warn(`${where} has no run yet: this run is its first, compared with nothing`, null);
    return fail(`${where} has no run yet, so a change is compared with nothing (no baseline)`, fix);
  }
  const latest = newest([...passed.executions, ...warned.executions]);
  if (latest === null) {
    const finding = `${where} has ${all.total} run${all.total === 1 ? '' : 's'}, none passing or warning, so a change is compared with nothing (a failed run is never a baseline)`;
    return onBase ? warn(finding, null) : fail(finding, `make a run on ${target.baseBranch} pass`);
  }
  const coverage = latest.coverage === null ? '' : ` at ${latest.coverage.toFixed(2)}%`;
  return pass(
    `${where} has ${all.total} run${all.total === 1 ? '' : 's'}; the latest passing is ${latest.id}${coverage} (${latest.created_at})`,
  );
}

function newest(runs: Execution[]): Execution | null {
  let found: Execution | null = null;
  for (const run of runs) if (found === null || run.id > found.id) found = run;
  return found;
}
