import { CovgateApiError, type CovgateClient } from '@covgate/client';
import { displayUrl } from '../service.js';
import { type Finding, fail, pass, warn } from './check.js';
import { type IdTokenClaims, identityOf } from './credential-check.js';

/**
 * Whether `repo` of `org` takes the runs of the job whose ID token the client carries, asked
 * of the service (`GET /v1/repos/ci-trust`) without posting a run.
 */
export async function checkCiTrust(
  client: CovgateClient,
  where: { url: string; org: string; repo: string; audience: string },
  claims: IdTokenClaims,
): Promise<Finding> {
  const job = `the job's OIDC ID token (${identityOf(claims)})`;
  const repository = `repository ${where.repo} of organisation ${where.org}`;
  try {
    const answer = await client.getCiTrust({ org: where.org, repo: where.repo });
    return pass(`${repository} trusts ${job}: its runs are recorded as ${answer.posted_by}`);
  } catch (error) {
    if (!(error instanceof CovgateApiError) || !error.fromApi) throw error;
    if (error.status === 403) {
      return fail(
        `${repository} does not trust ${job} (or the organisation or the repository does not exist)`,
        `an owner or admin of ${where.org} adds the job to the repository's ci_trust: PATCH /v1/repos/settings {"repo":${JSON.stringify(where.repo)},"ci_trust":[${JSON.stringify(trustEntry(claims))}]} (docs/keyless-ci.md)`,
      );
    }
    if (error.status === 401) {
      return fail(
        `${displayUrl(where.url)} refuses ${job}, issued by ${claims.iss ?? 'an unknown issuer'} for audience ${where.audience}: the server takes no ID tokens from that issuer, expects another audience, or the token expired`,
        "ask for the audience the server's OIDC_AUDIENCE names with --oidc-audience (or COVGATE_OIDC_AUDIENCE), and check that the server trusts the issuer (docs/keyless-ci.md)",
      );
    }
    if (error.status === 404 || error.status === 405) {
      return warn(
        `${displayUrl(where.url)} cannot say whether ${repository} trusts ${job} (a service older than GET /v1/repos/ci-trust); the trust is checked when the run is posted`,
        "upgrade the service to this CLI's release",
      );
    }
    throw error;
  }
}

/** The `ci_trust` entry that trusts exactly this job's repository and ref. */
function trustEntry(claims: IdTokenClaims): Record<string, string> {
  const gitlab = claims.project_path !== undefined;
  return {
    provider: gitlab ? 'gitlab' : 'github',
    repository: (gitlab ? claims.project_path : claims.repository) ?? '<owner/name>',
    ...(claims.ref ? { ref: gitlab ? gitlabRef(claims) : claims.ref } : {}),
  };
}

/** GitLab's `ref` (a bare name) in the full form `ci_trust` takes, by its `ref_type`. */
function gitlabRef(claims: IdTokenClaims): string {
  return `refs/${claims.ref_type === 'tag' ? 'tags' : 'heads'}/${claims.ref}`;
}
