import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { CiContext, GitRunner, RunContext, TextReader } from './context.js';
import { envCiContext, safeEnvCi } from './env-ci.js';
import { giteaActionsService, giteaContext } from './gitea-actions.js';
import { githubContext } from './github.js';
import { gitlabContext } from './gitlab.js';

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
 * (`github.ts`, `gitlab.ts`), since env-ci posts their merge commits on pull requests. Gitea
 * and Forgejo Actions, which env-ci takes for GitHub Actions, are told apart by their runners'
 * own variables and named `gitea` and `forgejo` (`gitea-actions.ts`).
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
  const gitea = giteaActionsService(env);
  const service = gitea ?? ci.service;
  const mapped: CiContext = gitea
    ? giteaContext(env, read)
    : ci.service === 'github'
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
    ...(service ? { service } : {}),
    ...(repo ? { repo } : {}),
    ...(Object.fromEntries(Object.entries(fields).filter(([, value]) => value)) as CiContext),
  };
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
