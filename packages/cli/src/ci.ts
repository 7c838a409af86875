import { execFileSync } from 'node:child_process';
import { basename } from 'node:path';
import envCi from 'env-ci';

/** What a run is about, as detected from CI or git; every field may be overridden by a flag. */
export interface RunContext {
  repo?: string;
  branch?: string;
  commit?: string;
  baseBranch?: string;
  pullRequest?: string;
  /** The CI service env-ci recognised (`github`, `gitlab`, ...), undefined outside CI. */
  service?: string;
}

/** Runs git and returns its trimmed output, or undefined when git fails. */
export type GitRunner = (args: string[], cwd: string) => string | undefined;

const runGit: GitRunner = (args, cwd) => {
  try {
    const out = execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return out === '' ? undefined : out;
  } catch {
    return undefined;
  }
};

/**
 * Detects repository, branch, commit, base branch and pull request from the CI environment
 * with env-ci (GitHub Actions, GitLab CI, CircleCI, Jenkins, Azure Pipelines, Bitbucket,
 * Buildkite and the others it knows), falling back to the local git checkout.
 *
 * - repo: the last segment of the CI's `owner/name` slug, else of the `origin` remote's URL,
 *   else the name of the checkout's top folder;
 * - branch: on a pull request its head (source) branch, and its target as `baseBranch`.
 */
export function detectContext(
  env: NodeJS.ProcessEnv,
  cwd: string,
  git: GitRunner = runGit,
): RunContext {
  const ci = envCi({ env, cwd });
  const context: RunContext = {};
  if (ci.service) context.service = ci.service;
  const repo =
    lastSegment(ci.slug) ??
    repoFromRemote(git(['config', '--get', 'remote.origin.url'], cwd)) ??
    topFolder(git(['rev-parse', '--show-toplevel'], cwd));
  if (repo) context.repo = repo;
  // GitHub's env-ci `prBranch` is the merge ref; the head branch is GITHUB_HEAD_REF.
  const head = env.GITHUB_HEAD_REF || (ci.isPr ? ci.prBranch : undefined);
  const branch = head || ci.branch;
  if (branch) context.branch = branch;
  if (ci.isPr && ci.branch && ci.branch !== branch) context.baseBranch = ci.branch;
  if (ci.isPr && ci.pr) context.pullRequest = String(ci.pr);
  if (ci.commit) context.commit = ci.commit;
  return context;
}

function lastSegment(slug: string | undefined): string | undefined {
  const segment = slug?.split('/').filter(Boolean).pop();
  return segment || undefined;
}

/** The repository name of a git remote URL (`git@host:o/name.git`, `https://host/o/name`). */
export function repoFromRemote(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const name = url
    .replace(/[/\\]+$/, '')
    .replace(/\.git$/, '')
    .split(/[/:\\]/)
    .pop();
  return name || undefined;
}

function topFolder(path: string | undefined): string | undefined {
  return path ? basename(path) : undefined;
}
