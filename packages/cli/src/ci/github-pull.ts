import { CliError, EXIT, usageError } from '../errors.js';

/** What covgate checks of a pull request GitHub's REST API answers. */
export interface GithubPull {
  number: number;
  state: string;
  headSha: string;
  /** `owner/name` of the head's repository; null when the fork was deleted. */
  headRepository: string | null;
  baseRef: string;
  baseRepository: string;
}

/** Seconds the look-up may take. */
const LOOKUP_SECONDS = 15;

/**
 * `GET /repos/{repository}/pulls/{number}` on GitHub's REST API (`GITHUB_API_URL`, GitHub
 * Enterprise Server included) with the job's `GITHUB_TOKEN`: how a `workflow_run` job learns
 * a fork's pull request, which the event does not list.
 *
 * @throws CliError exit 2 without a token or for a pull request GitHub does not have; exit 3
 *   when GitHub cannot be reached or answers otherwise
 */
export async function fetchGithubPull(
  repository: string,
  number: number,
  env: NodeJS.ProcessEnv,
  fetcher: typeof fetch = fetch,
): Promise<GithubPull> {
  const token = env.GITHUB_TOKEN?.trim();
  if (!token) {
    throw usageError(
      `the workflow run lists no pull request (GitHub leaves a fork's out), and covgate checks pull request #${number} with GitHub's API: set GITHUB_TOKEN (env: GITHUB_TOKEN: \${{ github.token }}, which the action passes)`,
    );
  }
  const api = (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, '');
  const url = `${api}/repos/${repository}/pulls/${number}`;
  let answer: Response;
  try {
    answer = await fetcher(url, {
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${token}`,
        'x-github-api-version': '2022-11-28',
        'user-agent': 'covgate-cli',
      },
      signal: AbortSignal.timeout(LOOKUP_SECONDS * 1000),
    });
  } catch (error) {
    throw new CliError(
      `GitHub's API at ${api} could not be reached to check pull request #${number}: ${(error as Error).message}`,
      EXIT.service,
    );
  }
  if (answer.status === 404) {
    throw usageError(
      `${repository} has no pull request #${number} (GitHub's API answered 404); nothing was posted`,
    );
  }
  if (!answer.ok) {
    throw new CliError(
      `GitHub's API answered ${answer.status} to the look-up of pull request #${number} of ${repository}`,
      EXIT.service,
    );
  }
  const body = (await answer.json().catch(() => null)) as {
    number?: unknown;
    state?: unknown;
    head?: { sha?: unknown; repo?: { full_name?: unknown } | null };
    base?: { ref?: unknown; repo?: { full_name?: unknown } };
  } | null;
  const pull = {
    number: body?.number,
    state: body?.state,
    headSha: body?.head?.sha,
    headRepository: body?.head?.repo?.full_name ?? null,
    baseRef: body?.base?.ref,
    baseRepository: body?.base?.repo?.full_name,
  };
  if (
    typeof pull.number !== 'number' ||
    typeof pull.state !== 'string' ||
    typeof pull.headSha !== 'string' ||
    (pull.headRepository !== null && typeof pull.headRepository !== 'string') ||
    typeof pull.baseRef !== 'string' ||
    typeof pull.baseRepository !== 'string'
  ) {
    throw new CliError(
      `GitHub's API answered pull request #${number} without its head and base`,
      EXIT.service,
    );
  }
  return { ...(pull as GithubPull), headSha: pull.headSha.toLowerCase() };
}
