import type { CiContext, TextReader } from './context.js';

// What covgate reads of a GitHub Actions event file (the webhook payload of the event).
interface PullRequestPayload {
  number?: unknown;
  head?: { ref?: unknown; sha?: unknown };
  base?: { ref?: unknown };
}

// What covgate reads of a `merge_group` event's payload.
interface MergeGroupPayload {
  head_sha?: unknown;
  head_ref?: unknown;
  base_ref?: unknown;
}

/**
 * GitHub Actions, from its variables and the event file (`GITHUB_EVENT_PATH`).
 *
 * On a pull request (`pull_request`, `pull_request_target` and the review events) the commit
 * is `pull_request.head.sha`: `GITHUB_SHA` is the merge commit of `refs/pull/N/merge` (or,
 * for `pull_request_target`, the base branch's head), which nobody pushed. The branch is
 * `GITHUB_HEAD_REF` (else `pull_request.head.ref`), the base branch `pull_request.base.ref`
 * (else `GITHUB_BASE_REF`, which is enough without an event file). A tag build
 * (`GITHUB_REF_TYPE=tag`, `GITHUB_REF=refs/tags/...`) names no branch. A merge queue's run
 * (`merge_group`) is read by {@link mergeGroupContext}. The repository's URL is
 * `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY` (GitHub Enterprise Server included).
 */
export function githubContext(env: NodeJS.ProcessEnv, read: TextReader): CiContext {
  const context: CiContext = {};
  if (env.GITHUB_REPOSITORY) context.slug = env.GITHUB_REPOSITORY;
  if (env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY) {
    context.repoUrl = `${env.GITHUB_SERVER_URL.replace(/\/+$/, '')}/${env.GITHUB_REPOSITORY}`;
  }
  if (env.GITHUB_EVENT_NAME === 'merge_group') return mergeGroupContext(context, env, read);
  const ref = env.GITHUB_REF ?? '';
  const isPr =
    Boolean(env.GITHUB_EVENT_NAME?.startsWith('pull_request')) ||
    Boolean(env.GITHUB_HEAD_REF) ||
    Boolean(env.GITHUB_BASE_REF);
  if (!isPr) {
    if (env.GITHUB_REF_TYPE === 'tag' || ref.startsWith('refs/tags/')) {
      context.tag = env.GITHUB_REF_NAME || ref.replace(/^refs\/tags\//, '');
    } else {
      const branch = ref.replace(/^refs\/heads\//, '') || env.GITHUB_REF_NAME;
      if (branch) context.branch = branch;
    }
    if (env.GITHUB_SHA) context.commit = env.GITHUB_SHA;
    return context;
  }

  const event = readEvent(env.GITHUB_EVENT_PATH, read);
  const pr = event.payload?.pull_request as PullRequestPayload | undefined;
  const branch = env.GITHUB_HEAD_REF || text(pr?.head?.ref);
  if (branch) context.branch = branch;
  const base = text(pr?.base?.ref) || env.GITHUB_BASE_REF;
  if (base) context.baseBranch = base.replace(/^refs\/heads\//, '');
  const number =
    pr?.number ?? event.payload?.number ?? /^refs\/pull\/(\d+)\//.exec(ref)?.[1] ?? undefined;
  if (typeof number === 'number' || typeof number === 'string')
    context.pullRequest = String(number);
  const head = text(pr?.head?.sha);
  if (head) context.commit = head;
  else
    context.commitUnknown = `the pull request's head commit is not in the event file (${event.problem ?? 'it has no pull_request.head.sha'}), and GITHUB_SHA is the merge commit`;
  return context;
}

/** `gh-readonly-queue/<target>/pr-<number>-<sha>`: the temporary branch of a merge queue. */
const QUEUE_BRANCH = /^gh-readonly-queue\/(.+)\/pr-\d+-[0-9a-f]+$/;

/**
 * A merge queue's run (`merge_group`): the commit is the queue's, `merge_group.head_sha` (also
 * `GITHUB_SHA`), on its temporary branch `merge_group.head_ref`
 * (`gh-readonly-queue/main/pr-104-929f…`), and the base branch the queue's target,
 * `merge_group.base_ref` (else read from the branch's name). The statuses a branch protection
 * rule requires so land on the commit the queue waits for, and the patch is measured against
 * the target. No pull request: a group may hold several, each with its own comment already.
 */
function mergeGroupContext(
  context: CiContext,
  env: NodeJS.ProcessEnv,
  read: TextReader,
): CiContext {
  const group = readEvent(env.GITHUB_EVENT_PATH, read).payload?.merge_group as
    | MergeGroupPayload
    | undefined;
  const commit = text(group?.head_sha) ?? env.GITHUB_SHA;
  if (commit) context.commit = commit;
  const branch =
    (text(group?.head_ref) ?? env.GITHUB_REF ?? '').replace(/^refs\/heads\//, '') ||
    env.GITHUB_REF_NAME;
  if (branch) context.branch = branch;
  const base =
    text(group?.base_ref)?.replace(/^refs\/heads\//, '') ?? QUEUE_BRANCH.exec(branch ?? '')?.[1];
  if (base) context.baseBranch = base;
  return context;
}

function readEvent(
  path: string | undefined,
  read: TextReader,
): { payload?: Record<string, unknown>; problem?: string } {
  if (!path) return { problem: 'GITHUB_EVENT_PATH is not set' };
  let source: string;
  try {
    source = read(path);
  } catch (error) {
    return {
      problem: `${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    };
  }
  try {
    const payload: unknown = JSON.parse(source);
    if (typeof payload === 'object' && payload !== null)
      return { payload: payload as Record<string, unknown> };
  } catch {
    // Reported below.
  }
  return { problem: `${path} is not a JSON object` };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
