import { CliError, EXIT, usageError } from '../errors.js';
import { giteaActionsService } from './gitea-actions.js';

/** The variable a GitLab job's `id_tokens:` entry names by default. */
export const DEFAULT_ID_TOKEN_VARIABLE = 'COVGATE_ID_TOKEN';

/** Seconds the CLI waits for GitHub's token service. */
const ID_TOKEN_REQUEST_SECONDS = 10;

/** Where the CI job's OIDC ID token comes from, if it can have one. */
export type IdTokenSource =
  | { kind: 'variable'; name: string }
  | { kind: 'github'; requestUrl: string; requestToken: string };

/**
 * The job's ID token source: the variable `variable` when it is set (GitLab CI's
 * `id_tokens:`, or any CI that hands one over), else GitHub Actions' token service when the
 * job may ask it (`permissions: id-token: write` sets `ACTIONS_ID_TOKEN_REQUEST_URL` and
 * `ACTIONS_ID_TOKEN_REQUEST_TOKEN`), else null. On Gitea and Forgejo Actions the token
 * service is not used: Forgejo's (`enable-openid-connect: true`) sets the same variables, but
 * covgate takes no ID token that Gitea or Forgejo signs.
 */
export function idTokenSource(
  env: NodeJS.ProcessEnv,
  variable: string = DEFAULT_ID_TOKEN_VARIABLE,
): IdTokenSource | null {
  if (env[variable]?.trim()) return { kind: 'variable', name: variable };
  if (giteaActionsService(env) !== undefined) return null;
  const requestUrl = env.ACTIONS_ID_TOKEN_REQUEST_URL;
  const requestToken = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
  if (requestUrl && requestToken) return { kind: 'github', requestUrl, requestToken };
  return null;
}

/** What to do when a job asked for `--oidc` cannot have a token. */
export function noIdTokenError(
  variable: string = DEFAULT_ID_TOKEN_VARIABLE,
  env: NodeJS.ProcessEnv = {},
): CliError {
  const gitea = giteaActionsService(env);
  if (gitea !== undefined) {
    return usageError(
      `--oidc: covgate takes no ID token that ${gitea === 'forgejo' ? 'Forgejo' : 'Gitea'} Actions signs: post with an API token (COVGATE_TOKEN from a secret) instead`,
    );
  }
  return usageError(
    `--oidc: this job has no OIDC ID token: on GitHub Actions give the job \`permissions: id-token: write\`; on GitLab CI declare \`id_tokens: ${variable}: aud: <the covgate URL>\``,
  );
}

/** The audience a job asks its token for: `--oidc-audience`, else the service URL's origin. */
export function idTokenAudience(flag: string | undefined, serviceUrl: string): string {
  return flag || new URL(serviceUrl).origin;
}

/**
 * The job's ID token from `source`: the variable's value, or GitHub's answer to
 * `GET <ACTIONS_ID_TOKEN_REQUEST_URL>&audience=<audience>` with the request token.
 *
 * @throws CliError (exit 3) when GitHub's token service fails or answers without a token
 */
export async function readIdToken(
  source: IdTokenSource,
  env: NodeJS.ProcessEnv,
  audience: string,
  fetchImpl: typeof fetch = fetch,
): Promise<string> {
  if (source.kind === 'variable') return (env[source.name] ?? '').trim();
  const url = new URL(source.requestUrl);
  url.searchParams.set('audience', audience);
  let response: Response;
  try {
    response = await fetchImpl(url, {
      headers: { authorization: `Bearer ${source.requestToken}`, accept: 'application/json' },
      signal: AbortSignal.timeout(ID_TOKEN_REQUEST_SECONDS * 1000),
    });
  } catch (error) {
    throw new CliError(
      `GitHub's ID token service cannot be reached (${(error as Error).message})`,
      EXIT.service,
    );
  }
  const body = (await response.json().catch(() => null)) as { value?: unknown } | null;
  if (!response.ok || typeof body?.value !== 'string' || body.value === '') {
    throw new CliError(
      `GitHub's ID token service answered HTTP ${response.status} without a token; does the job have \`permissions: id-token: write\`?`,
      EXIT.service,
    );
  }
  return body.value;
}
