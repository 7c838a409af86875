import { ApiError, ERRORS } from '../api-error.js';
import { admitCiPoster, authenticateIngest } from '../auth/ci-token-login.js';
import { requireQueryParameter } from '../inputs/query-parameters.js';
import { jsonReply } from '../reply.js';
import type { RouteHandler } from '../services.js';

/**
 * `GET /v1/repos/ci-trust?org&repo` with a CI job's OIDC ID token: whether `repo` of `org`
 * would take the job's runs, without posting one (what `covgate doctor` asks). Check order, as
 * the ingest's: `401` a token that does not verify (or any credential when the server takes no
 * ID tokens), `403` an API token or a session (they do not post as a CI identity), `400`
 * missing `org` or `repo`, `403` the organisation, the repository or its `ci_trust` missing
 * (nothing tells them apart, as on ingest). `200 {org, repo, posted_by}`: the identity the
 * job's runs would be recorded as. Counts against the identity's rate limit like an ingest.
 */
export const getCiTrust: RouteHandler = async (scope) => {
  const poster = await authenticateIngest(scope);
  if (poster.kind !== 'ci') throw new ApiError(403, ERRORS.forbidden);
  const org = requireQueryParameter(scope.query, 'org');
  const repo = requireQueryParameter(scope.query, 'repo');
  const { postedBy } = await admitCiPoster(scope, poster.ci, { org, repo });
  return jsonReply(200, { org, repo, posted_by: postedBy });
};
