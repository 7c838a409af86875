import { CovgateApiError, type CovgateClient } from '@covgate/client';
import { idTokenAudience, idTokenSource, readIdToken } from '../ci/id-token.js';
import { chooseCredential } from '../ci/run-credential.js';
import { readApiToken } from '../credentials.js';
import { CliError } from '../errors.js';
import type { Io } from '../io.js';
import { displayUrl } from '../service.js';
import { type Finding, fail, pass, warn } from './check.js';

/** What `covgate doctor` takes to find the credential, as `covgate run` does. */
export interface CredentialOptions {
  org?: string;
  oidc?: boolean;
  oidcAudience?: string;
  idTokenVar?: string;
}

/** The credential a run would post with, once checked. */
export type CheckedCredential =
  | { kind: 'api-token'; token: string; org: string }
  | { kind: 'id-token'; token: string; org: string; claims: IdTokenClaims; audience: string };

/** The claims of a CI ID token that say who the job is. */
export interface IdTokenClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  repository?: string;
  project_path?: string;
  ref?: string;
  /** GitLab's: `branch` or `tag`. */
  ref_type?: string;
  environment?: string;
}

const ID_TOKEN_FIX =
  'give the job `permissions: id-token: write` (GitHub Actions) or an `id_tokens:` entry (GitLab CI)';

const NEW_TOKEN =
  'create an API token with the execute scope (`covgate tokens create ci`, or the API tokens page of the dashboard) and store it as the CI secret COVGATE_TOKEN';

/**
 * Whether the run's credential works, chosen as `covgate run` chooses it: an API token the
 * service validates with the `execute` scope (and of `--org`'s organisation), or the job's OIDC
 * ID token, which must be obtainable.
 */
export async function checkCredential(
  options: CredentialOptions,
  io: Io,
  url: string,
  client: (token: string) => CovgateClient,
): Promise<{ finding: Finding; credential: CheckedCredential | null }> {
  const none = (finding: Finding) => ({ finding, credential: null });
  let choice: ReturnType<typeof chooseCredential>;
  try {
    choice = chooseCredential(options, io.env);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return none(
      fail(
        error.message,
        // With an ID token at hand, what is missing is the organisation.
        idTokenSource(io.env, options.idTokenVar || undefined) === null
          ? ID_TOKEN_FIX
          : 'pass --org SLUG, the organisation whose repository settings trust this job',
      ),
    );
  }
  if (choice.kind === 'id-token') {
    let token: string;
    const audience = idTokenAudience(options.oidcAudience, url);
    try {
      token = await readIdToken(choice.source, io.env, audience, io.fetch);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      return none(fail(error.message, `${ID_TOKEN_FIX}, or set COVGATE_TOKEN instead`));
    }
    const claims = decodeClaims(token);
    const org = options.org as string;
    return {
      finding: pass(
        `the job's OIDC ID token (${identityOf(claims)}) is sent for organisation ${org}`,
      ),
      credential: { kind: 'id-token', token, org, claims, audience },
    };
  }

  let token: string;
  try {
    token = await readApiToken(io.env);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    const noCredential = !io.env.COVGATE_TOKEN?.trim() && !io.env.COVGATE_TOKEN_FILE;
    return none(
      fail(
        noCredential
          ? 'no credential: COVGATE_TOKEN and COVGATE_TOKEN_FILE are not set, and the job has no OIDC ID token'
          : error.message,
        noCredential ? `${NEW_TOKEN}; or post keyless: ${ID_TOKEN_FIX} and pass --org` : NEW_TOKEN,
      ),
    );
  }
  let answer: Awaited<ReturnType<CovgateClient['validateToken']>>;
  try {
    answer = await client(token).validateToken({ body: {} });
  } catch (error) {
    if (error instanceof CovgateApiError && error.fromApi && error.status === 401) {
      return none(
        fail(
          `${displayUrl(url)} refuses COVGATE_TOKEN (${error.error}): revoked, expired, or a token of another server`,
          NEW_TOKEN,
        ),
      );
    }
    throw error;
  }
  const who = `token ${answer.token_id} of organisation ${answer.org}`;
  if (!answer.scopes.includes('execute')) {
    return none(
      fail(
        `${who} lacks the execute scope (scopes: ${answer.scopes.join(', ') || 'none'})`,
        NEW_TOKEN,
      ),
    );
  }
  if (options.org !== undefined && options.org !== answer.org) {
    return none(
      fail(
        `${who} cannot post to organisation ${options.org} (--org)`,
        `use a token of organisation ${options.org}, or drop --org`,
      ),
    );
  }
  const credential: CheckedCredential = { kind: 'api-token', token, org: answer.org };
  if (answer.expires_at !== null) {
    return {
      finding: warn(
        `${who} has the execute scope, and stops working at ${answer.expires_at} (rotated)`,
        'store the token that replaced it as COVGATE_TOKEN before then',
      ),
      credential,
    };
  }
  return { finding: pass(`${who} has the execute scope`), credential };
}

/**
 * The claims of an ID token, read without checking its signature: only to say which
 * identity the job has (the service verifies the token when it is sent).
 */
export function decodeClaims(token: string): IdTokenClaims {
  try {
    const payload = token.split('.')[1] ?? '';
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    return typeof claims === 'object' && claims !== null ? (claims as IdTokenClaims) : {};
  } catch {
    return {};
  }
}

/** `repository acme/api, ref refs/heads/main`: who the job is, by its claims. */
export function identityOf(claims: IdTokenClaims): string {
  const parts = [
    claims.repository ? `repository ${claims.repository}` : null,
    claims.project_path ? `project ${claims.project_path}` : null,
    claims.ref ? `ref ${claims.ref}` : null,
    claims.environment ? `environment ${claims.environment}` : null,
  ].filter((part) => part !== null);
  return parts.length > 0 ? parts.join(', ') : `subject ${claims.sub ?? 'unknown'}`;
}
