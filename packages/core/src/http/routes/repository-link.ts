import { z } from 'zod';
import type { SessionIdentity } from '../../auth/identities.js';
import { checkCodeHostUrl } from '../../code-hosts/code-host-address.js';
import {
  credentialHint,
  encryptCredential,
  repositoryLinkCredentialContext,
} from '../../repository-links/credential-encryption.js';
import { type DeliveryRecord, GITHUB_API_URL, type RepositoryLink } from '../../storage/store.js';
import { formatTimestamp, wholeSeconds } from '../../time/timestamp.js';
import { ApiError, ERRORS } from '../api-error.js';
import { requireOrgAccess } from '../auth/access.js';
import { authenticateSessionOnly } from '../auth/authenticate.js';
import { requireQueryParameter } from '../inputs/query-parameters.js';
import { emptyReply, jsonReply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RequestScope, RouteHandler } from '../services.js';
import { parseBody } from '../validation.js';

/** Public messages of the repository link routes. */
export const REPOSITORY_LINK_ERRORS = {
  nonPublicApiUrl:
    'invalid parameter: api_url is or resolves to a loopback, private or link-local address',
} as const;

/** How many of a repository's latest failed deliveries a link's answer lists. */
export const LINK_FAILURES_SHOWN = 5;

/** A GitHub repository as `owner/name`: GitHub's login rule, then its repository name rule. */
export const GITHUB_REPOSITORY =
  /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}\/[A-Za-z0-9._-]{1,100}$/;

/** A covgate repository name, as `PATCH /v1/repos/settings` takes it. */
const REPO_NAME = /^[^\p{Cc}]{1,255}$/u;

/** An `https:` API base without credentials, query or fragment; stored without a trailing `/`. */
function apiBase(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.search || url.hash)
    return undefined;
  return url.href.replace(/\/+$/, '');
}

const linkBody = z.object({
  github_repo: z
    .string()
    .regex(GITHUB_REPOSITORY)
    .refine((name) => !/\/\.{1,2}$/.test(name)),
  // Printable ASCII without spaces: every GitHub token is, and a pasted line break is refused
  // here instead of at the first delivery.
  token: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7e]+$/),
  api_url: z
    .string()
    .max(2048)
    .refine((value) => apiBase(value) !== undefined)
    .optional(),
});

/** A failed delivery as the link's answer lists it: what, why, when. */
function failureToJson(delivery: DeliveryRecord) {
  return {
    kind: delivery.kind,
    execution_id: delivery.executionId,
    reason: delivery.lastError ?? '',
    status: delivery.lastStatus,
    failed_at: formatTimestamp(delivery.updatedAt),
  };
}

/** The wire form of a link: never the credential, only its hint. */
function linkToJson(link: RepositoryLink, failures: DeliveryRecord[]) {
  return {
    repo: link.repo,
    github_repo: link.githubRepo,
    api_url: link.apiUrl,
    token_hint: link.credentialHint,
    created_by: link.createdBy,
    created_at: formatTimestamp(link.createdAt),
    updated_at: formatTimestamp(link.updatedAt),
    failures: failures.map(failureToJson),
  };
}

/**
 * The checks every link route makes, in order: `401`, `403` (an API token, or a role below
 * admin), `400` missing `org` or `repo` (or a repository name with control characters), `403`
 * `org` is not the session's organisation.
 */
async function linkTarget(
  scope: RequestScope,
): Promise<{ identity: SessionIdentity; repo: string }> {
  const identity = await authenticateSessionOnly(scope, 'admin');
  const org = requireQueryParameter(scope.query, 'org');
  const repo = requireQueryParameter(scope.query, 'repo');
  if (!REPO_NAME.test(repo)) throw new ApiError(400, 'invalid parameter: repo');
  requireOrgAccess(identity, org);
  return { identity, repo };
}

async function answer(scope: RequestScope, link: RepositoryLink, status: number) {
  const { store } = scope.services;
  const failures = await store.listDeliveryFailures(link.orgId, link.repo, LINK_FAILURES_SHOWN);
  return jsonReply(status, linkToJson(link, failures));
}

/**
 * `GET /v1/repos/github-link?org&repo`: the repository's link to a GitHub repository, with the
 * latest failed deliveries; `404` when there is none. Admins and owners, through a session.
 */
export const getRepositoryLink: RouteHandler = async (scope) => {
  const { identity, repo } = await linkTarget(scope);
  const { store } = scope.services;
  const link = await store.findRepositoryLink(identity.orgId, repo);
  if (!link) throw new ApiError(404, ERRORS.notFound);
  return answer(scope, link, 200);
};

/**
 * `POST /v1/repos/github-link?org&repo` `{github_repo, token, api_url?}`: links the repository
 * (or replaces its link, like `POST /v1/organisation/github-link`; keeping who first made it and when). The token is sealed before it is
 * stored and never answered; GitHub is not called (it may be down: a wrong token shows as a
 * failed delivery). Order: as {@link linkTarget}, then `400` body, then `400` an `api_url`
 * whose host is or resolves to a non-public address the operator did not allow
 * (`allowPrivateCodeHosts`); the outbox checks again at every connection.
 */
export const linkRepository: RouteHandler = async (scope) => {
  const { identity, repo } = await linkTarget(scope);
  const body = parseBody(linkBody, await readJsonBody(scope.request));
  const { store, audit, clock, settings, codeHosts } = scope.services;
  if (body.api_url !== undefined) {
    const verdict = await checkCodeHostUrl(
      new URL(body.api_url),
      codeHosts.policy,
      codeHosts.resolve,
    );
    if (!verdict.allowed) throw new ApiError(400, REPOSITORY_LINK_ERRORS.nonPublicApiUrl);
  }
  const existing = await store.findRepositoryLink(identity.orgId, repo);
  const now = wholeSeconds(clock.now());
  const link: RepositoryLink = {
    orgId: identity.orgId,
    repo,
    githubRepo: body.github_repo,
    apiUrl: body.api_url === undefined ? GITHUB_API_URL : (apiBase(body.api_url) as string),
    credential: encryptCredential(
      body.token,
      repositoryLinkCredentialContext(identity.orgId, repo),
      settings,
    ),
    credentialHint: credentialHint(body.token),
    createdBy: existing?.createdBy ?? identity.userId,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  await store.putRepositoryLink(link);
  audit.record({
    type: 'repository.link',
    orgId: identity.orgId,
    repo,
    githubRepo: link.githubRepo,
    apiUrl: link.apiUrl,
    by: identity.userId,
  });
  return answer(scope, link, 200);
};

/**
 * `DELETE /v1/repos/github-link?org&repo`: removes the link and its credential (`404` when
 * there is none). Deliveries already queued then fail for want of a link.
 */
export const unlinkRepository: RouteHandler = async (scope) => {
  const { identity, repo } = await linkTarget(scope);
  const { store, audit } = scope.services;
  const link = await store.findRepositoryLink(identity.orgId, repo);
  const removed = link !== null && (await store.deleteRepositoryLink(identity.orgId, repo));
  if (!link || !removed) throw new ApiError(404, ERRORS.notFound);
  audit.record({
    type: 'repository.unlink',
    orgId: identity.orgId,
    repo,
    githubRepo: link.githubRepo,
    by: identity.userId,
  });
  return emptyReply(204);
};
