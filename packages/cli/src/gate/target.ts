import type { RunContext } from '../ci/context.js';
import { usageError } from '../errors.js';

/** What a run is posted as. */
export interface Target {
  repo: string;
  branch: string;
  commit?: string;
  baseBranch?: string;
  /** The pull (merge) request's number, from CI. */
  pullRequest?: number;
  /** The repository's code-host URL, from CI, when it is one the service takes. */
  repoUrl?: string;
}

/** The flags that name what a run is about; each overrides what CI or git tell. */
export interface TargetFlags {
  repo?: string;
  branch?: string;
  commit?: string;
  baseBranch?: string;
}

const COMMIT = /^[0-9a-fA-F]{7,64}$/;

/**
 * The repository, branch, commit and base branch of a run: the flags, else what `detect`
 * finds (called only when a flag is missing). Resolves with warnings to print.
 *
 * @throws CliError (exit 2) when the repository or the branch cannot be told (a tag build
 *   says so and asks for `--branch`), or `--commit` is not a commit id
 */
export function resolveTarget(
  flags: TargetFlags,
  detect: () => RunContext,
): { target: Target; warnings: string[] } {
  const detected: RunContext =
    flags.repo && flags.branch && flags.commit && flags.baseBranch ? {} : detect();
  const repo = flags.repo ?? detected.repo;
  const branch = flags.branch ?? detected.branch;
  if (!repo) throw usageError('cannot tell the repository from CI or git: pass --repo NAME');
  if (!branch && detected.tag) {
    throw usageError(
      `this is a build of tag ${detected.tag}, not of a branch: pass --branch NAME (the branch whose history the run belongs to, e.g. --branch main)`,
    );
  }
  if (!branch) throw usageError('cannot tell the branch from CI or git: pass --branch NAME');
  if (flags.commit !== undefined && !COMMIT.test(flags.commit)) {
    throw usageError(`--commit ${flags.commit}: not a commit id (7 to 64 hexadecimal characters)`);
  }
  const warnings: string[] = [];
  if (flags.commit === undefined && detected.commitUnknown) {
    warnings.push(`no commit is posted: ${detected.commitUnknown}; pass --commit SHA`);
  }
  // A detected commit that is not hex (some CI systems report other ids) is left out.
  const commit =
    flags.commit ?? (detected.commit && COMMIT.test(detected.commit) ? detected.commit : undefined);
  const baseBranch = flags.baseBranch ?? detected.baseBranch;
  // A number as the service takes it; CI systems that report something else are left out.
  const pullRequest = /^[1-9][0-9]{0,9}$/.test(detected.pullRequest ?? '')
    ? Number(detected.pullRequest)
    : undefined;
  return {
    target: {
      repo,
      branch,
      ...(commit ? { commit } : {}),
      ...(baseBranch ? { baseBranch } : {}),
      ...(pullRequest !== undefined && pullRequest <= 2_147_483_647 ? { pullRequest } : {}),
      ...(detected.repoUrl && isRepoUrl(detected.repoUrl) ? { repoUrl: detected.repoUrl } : {}),
    },
    warnings,
  };
}

/**
 * Whether the service takes a URL as a repository's `web_url`: `http` or `https`, no user
 * name or password (a CI variable never carries a token there, but one that did would be
 * stored), no query or fragment, at most 512 characters. Another one is left out, not sent
 * to be refused with the run.
 */
export function isRepoUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.username === '' &&
    url.password === '' &&
    !/[?#]/.test(value) &&
    url.href.replace(/\/+$/, '').length <= 512
  );
}
