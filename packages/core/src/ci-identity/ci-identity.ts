import type { JWTPayload } from 'jose';
import type { CiProvider } from '../storage/store.js';

export { CI_PROVIDERS, type CiProvider } from '../storage/store.js';

/** The issuer of GitHub Actions' ID tokens on github.com. */
export const GITHUB_ACTIONS_ISSUER = 'https://token.actions.githubusercontent.com';

/**
 * Who a verified ID token says is running: the CI system, the repository (GitHub's
 * `repository`, GitLab's `project_path`), the full git ref (`refs/heads/main`; GitLab's bare
 * `ref` made full from its `ref_type`) and the deployment environment, when the job has one.
 */
export interface CiIdentity {
  provider: CiProvider;
  repository: string;
  /** `refs/heads/<branch>` or `refs/tags/<tag>` (GitHub: also `refs/pull/<n>/merge`); null when absent. */
  ref: string | null;
  environment: string | null;
}

function stringClaim(claims: JWTPayload, name: string): string | null {
  const value = claims[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** GitLab's `ref` is a bare name; `ref_type` says whether it is a branch or a tag. */
function gitlabRef(claims: JWTPayload): string | null {
  const ref = stringClaim(claims, 'ref');
  if (ref === null) return null;
  const type = stringClaim(claims, 'ref_type');
  if (type === 'branch') return `refs/heads/${ref}`;
  if (type === 'tag') return `refs/tags/${ref}`;
  return null;
}

/**
 * The identity in a verified token's claims, or null when the claim naming the repository is
 * missing (such a token identifies no repository, so no trust can match it).
 */
export function ciIdentityOf(provider: CiProvider, claims: JWTPayload): CiIdentity | null {
  const repository = stringClaim(claims, provider === 'github' ? 'repository' : 'project_path');
  if (repository === null) return null;
  return {
    provider,
    repository,
    ref: provider === 'github' ? stringClaim(claims, 'ref') : gitlabRef(claims),
    environment: stringClaim(claims, 'environment'),
  };
}

/**
 * What a run posted by `identity` records as its poster: `oidc:github:acme/api@refs/heads/main`
 * (`@ref` only when the token named one).
 */
export function postedByOf(identity: CiIdentity): string {
  const ref = identity.ref === null ? '' : `@${identity.ref}`;
  return `oidc:${identity.provider}:${identity.repository}${ref}`;
}
