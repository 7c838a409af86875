import { usageError } from '../errors.js';
import {
  DEFAULT_ID_TOKEN_VARIABLE,
  type IdTokenSource,
  idTokenSource,
  noIdTokenError,
} from './id-token.js';

/** What a run is posted with: the API token, or the CI job's OIDC ID token. */
export type RunCredential = { kind: 'api-token' } | { kind: 'id-token'; source: IdTokenSource };

/**
 * The run's credential: the job's ID token with `--oidc`, or when no `COVGATE_TOKEN` (nor
 * `COVGATE_TOKEN_FILE`) is set and the job can have one; else the API token (whose absence
 * {@link readApiToken} reports). An ID token's run must name its organisation (`--org`).
 *
 * @throws CliError (exit 2) for `--oidc` in a job without an ID token, or without `--org`
 */
export function chooseCredential(
  options: { oidc?: boolean; idTokenVar?: string; org?: string },
  env: NodeJS.ProcessEnv,
): RunCredential {
  const variable = options.idTokenVar || DEFAULT_ID_TOKEN_VARIABLE;
  const hasApiToken = Boolean(env.COVGATE_TOKEN?.trim() || env.COVGATE_TOKEN_FILE);
  if (!options.oidc && hasApiToken) return { kind: 'api-token' };
  const source = idTokenSource(env, variable);
  if (source === null) {
    if (options.oidc) throw noIdTokenError(variable, env);
    return { kind: 'api-token' };
  }
  if (!options.org) {
    throw usageError(
      "a run posted with the job's OIDC ID token names its organisation: pass --org SLUG (the organisation whose repository settings trust this job)",
    );
  }
  return { kind: 'id-token', source };
}
