import type { CiContext } from './context.js';

/**
 * GitLab CI, from its predefined variables.
 *
 * In a merge request pipeline the branch is the source branch, the base branch the target and
 * the commit `CI_MERGE_REQUEST_SOURCE_BRANCH_SHA` when GitLab sets it (merged results
 * pipelines and merge trains, whose `CI_COMMIT_SHA` is the merge result), else
 * `CI_COMMIT_SHA` (the source branch's head). The pull request is the merge request's `!IID`.
 * A tag pipeline (`CI_COMMIT_TAG`) has no `CI_COMMIT_BRANCH`, so it names no branch. The
 * repository's URL is `CI_PROJECT_URL`.
 */
export function gitlabContext(env: NodeJS.ProcessEnv): CiContext {
  const context: CiContext = {};
  if (env.CI_PROJECT_PATH) context.slug = env.CI_PROJECT_PATH;
  if (env.CI_PROJECT_URL) context.repoUrl = env.CI_PROJECT_URL;
  const mergeRequest = env.CI_MERGE_REQUEST_IID || env.CI_MERGE_REQUEST_ID;
  if (mergeRequest) {
    context.pullRequest = mergeRequest;
    const branch = env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME || env.CI_COMMIT_REF_NAME;
    if (branch) context.branch = branch;
    if (env.CI_MERGE_REQUEST_TARGET_BRANCH_NAME)
      context.baseBranch = env.CI_MERGE_REQUEST_TARGET_BRANCH_NAME;
    const commit = env.CI_MERGE_REQUEST_SOURCE_BRANCH_SHA || env.CI_COMMIT_SHA;
    if (commit) context.commit = commit;
    return context;
  }
  if (env.CI_COMMIT_SHA) context.commit = env.CI_COMMIT_SHA;
  if (env.CI_COMMIT_TAG) {
    context.tag = env.CI_COMMIT_TAG;
    if (env.CI_COMMIT_BRANCH) context.branch = env.CI_COMMIT_BRANCH;
    return context;
  }
  const branch = env.CI_COMMIT_BRANCH || env.CI_COMMIT_REF_NAME;
  if (branch) context.branch = branch;
  return context;
}
