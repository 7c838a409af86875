import type { CiContext, TextReader } from './context.js';
import { githubContext } from './github.js';

/** The CI services that run GitHub-style workflows on a Gitea or Forgejo instance. */
export type GiteaActionsService = 'gitea' | 'forgejo';

/**
 * Which runner the job runs on, if a Gitea-style one: Forgejo's runner sets both
 * `FORGEJO_ACTIONS=true` and `GITEA_ACTIONS=true`, Gitea's act_runner only the latter. Both
 * also set `GITHUB_ACTIONS=true`, which is why env-ci takes them for GitHub Actions.
 */
export function giteaActionsService(env: NodeJS.ProcessEnv): GiteaActionsService | undefined {
  if (env.FORGEJO_ACTIONS === 'true') return 'forgejo';
  if (env.GITEA_ACTIONS === 'true') return 'gitea';
  return undefined;
}

const PULL_HEAD_REF = /^refs\/pull\/\d+\/head$/;

/**
 * Gitea and Forgejo Actions, read as GitHub Actions ({@link githubContext}): the runners set
 * the same `GITHUB_*` variables, and the event file is the instance's webhook payload, whose
 * `pull_request` carries `number`, `head.ref`, `head.sha` and `base.ref` as GitHub's does.
 * The repository's URL is `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY`, on the instance.
 *
 * One difference: a `pull_request` run's `GITHUB_REF` is `refs/pull/N/head` and its
 * `GITHUB_SHA` that ref's commit, the pull request's head (the instance tests no merge
 * commit), so it stands in when the event file cannot be read. Another ref's commit (the base
 * branch's head of a `pull_request_target` run, a merged pull request's merge commit) never
 * does.
 */
export function giteaContext(env: NodeJS.ProcessEnv, read: TextReader): CiContext {
  const context = githubContext(env, read);
  if (
    context.commitUnknown !== undefined &&
    PULL_HEAD_REF.test(env.GITHUB_REF ?? '') &&
    env.GITHUB_SHA
  ) {
    const { commitUnknown: _, ...known } = context;
    return { ...known, commit: env.GITHUB_SHA };
  }
  return context;
}
