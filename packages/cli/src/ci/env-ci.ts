import envCi, { type CiEnvironment } from 'env-ci';
import type { CiContext } from './context.js';

/** env-ci, which throws on a `pull_request_target` whose event file cannot be read. */
export function safeEnvCi(env: NodeJS.ProcessEnv, cwd: string): CiEnvironment {
  try {
    return envCi({ env, cwd });
  } catch {
    return envCi({ env: { ...env, GITHUB_EVENT_PATH: undefined }, cwd });
  }
}

/**
 * The other CI services as env-ci reports them; on a pull request env-ci's `branch` is the
 * target and `prBranch` the head. A tag build whose branch is the tag itself names no branch.
 */
export function envCiContext(ci: CiEnvironment): CiContext {
  const context: CiContext = {};
  if (ci.slug) context.slug = ci.slug;
  if (ci.commit) context.commit = ci.commit;
  const branch = (ci.isPr ? ci.prBranch : undefined) || ci.branch;
  if (ci.tag && (!branch || branch === ci.tag || branch.startsWith('refs/tags/'))) {
    context.tag = ci.tag;
    return context;
  }
  if (branch) context.branch = branch;
  if (ci.isPr && ci.branch && ci.branch !== branch) context.baseBranch = ci.branch;
  if (ci.isPr && ci.pr) context.pullRequest = String(ci.pr);
  return context;
}
