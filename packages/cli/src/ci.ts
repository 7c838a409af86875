import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import envCi, { type CiEnvironment } from 'env-ci';
import { githubContext } from './ci-github.js';
import { gitlabContext } from './ci-gitlab.js';

/** What a run is about, as detected from CI or git; every field may be overridden by a flag. */
export interface RunContext {
  repo?: string;
  branch?: string;
  /** The head commit of the change: on a pull request never the CI's merge commit. */
  commit?: string;
  baseBranch?: string;
  pullRequest?: string;
  /** The CI service env-ci recognised (`github`, `gitlab`, ...), undefined outside CI. */
  service?: string;
  /** The tag of a tag build; such a build has no branch unless the CI names one. */
  tag?: string;
  /** Why the commit could not be told (it is then left out rather than guessed). */
  commitUnknown?: string;
  /**
   * The repository's URL on its code host, as the CI names it (GitHub Actions:
   * `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY`; GitLab CI: `$CI_PROJECT_URL`).
   */
  repoUrl?: string;
}

/** What a CI mapping tells, before the repository name is worked out. */
export type CiContext = Omit<RunContext, 'repo' | 'service'> & { slug?: string };

/** Runs git and returns its trimmed output, or undefined when git fails. */
export type GitRunner = (args: string[], cwd: string) => string | undefined;

/** Reads a file as UTF-8 text (the GitHub event file); throws when it cannot. */
export type TextReader = (path: string) => string;

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

const readText: TextReader = (path) => readFileSync(path, 'utf8');

/**
 * Detects repository, branch, commit, base branch, pull request and tag from the CI
 * environment, falling back to the local git checkout. env-ci names the CI service
 * (GitHub Actions, GitLab CI, CircleCI, Jenkins, Azure Pipelines, Bitbucket, Buildkite and
 * the others it knows); GitHub Actions and GitLab CI are then read by covgate's own mappings
 * (`ci-github.ts`, `ci-gitlab.ts`), since env-ci posts their merge commits on pull requests.
 *
 * - repo: the last segment of the CI's `owner/name` slug, else of the `origin` remote's URL,
 *   else the name of the checkout's top folder;
 * - branch: on a pull request its head (source) branch, and its target as `baseBranch`;
 * - commit: on a pull request its head commit;
 * - tag: on a tag build, whose branch is left unknown unless the CI names one.
 */
export function detectContext(
  env: NodeJS.ProcessEnv,
  cwd: string,
  git: GitRunner = runGit,
  read: TextReader = readText,
): RunContext {
  const ci = safeEnvCi(env, cwd);
  const mapped: CiContext =
    ci.service === 'github'
      ? githubContext(env, read)
      : ci.service === 'gitlab'
        ? gitlabContext(env)
        : envCiContext(ci);
  const { slug, ...fields } = mapped;
  const repo =
    lastSegment(slug) ??
    repoFromRemote(git(['config', '--get', 'remote.origin.url'], cwd)) ??
    topFolder(git(['rev-parse', '--show-toplevel'], cwd));
  return {
    ...(ci.service ? { service: ci.service } : {}),
    ...(repo ? { repo } : {}),
    ...(Object.fromEntries(Object.entries(fields).filter(([, value]) => value)) as CiContext),
  };
}

/** env-ci, which throws on a `pull_request_target` whose event file cannot be read. */
function safeEnvCi(env: NodeJS.ProcessEnv, cwd: string): CiEnvironment {
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
