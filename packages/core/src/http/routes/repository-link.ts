import { z } from 'zod';
import { checkCodeHostUrl } from '../../code-hosts/code-host-address.js';
import type { SessionIdentity } from '../../identity/identities.js';
import { FEEDBACK_HOSTS } from '../../outbox/feedback-hosts.js';
import { githubFeedbackHost } from '../../outbox/github-feedback-host.js';
import {
  credentialHint,
  encryptCredential,
  repositoryLinkCredentialContext,
} from '../../repository-links/credential-encryption.js';
import {
  CODE_HOST_KINDS,
  type CodeHostKind,
  type DeliveryRecord,
  type RepositoryLink,
} from '../../storage/store.js';
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
  /** A host without a default API (Gitea, Forgejo) and no `api_url`. */
  apiUrlRequired: 'invalid parameter: api_url is required for this host',
  repository: 'invalid parameter: repository',
} as const;

/** How many of a repository's latest failed deliveries a link's answer lists. */
export const LINK_FAILURES_SHOWN = 5;

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

// Printable ASCII without spaces: every GitHub, GitLab and Gitea token is, and a pasted line
// break is refused here instead of at the first delivery.
const token = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/);
const apiUrl = z
  .string()
  .max(2048)
  .refine((value) => apiBase(value) !== undefined)
  .optional();

const githubLinkBody = z.object({
  github_repo: z.string().refine((name) => githubFeedbackHost.isRepositoryPath(name)),
  token,
  api_url: apiUrl,
});

const codeHostLinkBody = z.object({
  host: z.enum(CODE_HOST_KINDS as [CodeHostKind, ...CodeHostKind[]]),
  repository: z.string().max(1024),
  token,
  api_url: apiUrl,
});

/** What a link is made of, whichever route took it. */
interface LinkInput {
  host: CodeHostKind;
  repository: string;
  token: string;
  apiUrl: string | undefined;
}

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
function linkToJson(link: RepositoryLink, failures: DeliveryRecord[], view: LinkView) {
  return {
    repo: link.repo,
    ...(view === 'github'
      ? { github_repo: link.repository }
      : { host: link.host, repository: link.repository }),
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

/**
 * Which route a link is read through: `github` (`/v1/repos/github-link`, GitHub links only,
 * `github_repo`) or `code-host` (`/v1/repos/code-host-link`, any host, `host` and
 * `repository`).
 */
type LinkView = 'github' | 'code-host';

/**
 * The link's answer. Its failures are those given up since the link was made (`createdAt`):
 * a repository linked to another host or repository since shows none of the previous link's,
 * which stay on their runs' pages.
 */
async function answer(scope: RequestScope, link: RepositoryLink, status: number, view: LinkView) {
  const { store } = scope.services;
  const failures = await store.listDeliveryFailures(
    link.orgId,
    link.repo,
    LINK_FAILURES_SHOWN,
    link.createdAt,
  );
  return jsonReply(status, linkToJson(link, failures, view));
}

/** Whether `link` sends to the same host and repository as `existing`: then it is that link. */
function sameTarget(existing: RepositoryLink | null, link: LinkInput): existing is RepositoryLink {
  return (
    existing !== null && existing.host === link.host && existing.repository === link.repository
  );
}

/** The repository's link as `view` sees it: the GitHub routes see no other host's. */
async function findLink(
  scope: RequestScope,
  orgId: string,
  repo: string,
  view: LinkView,
): Promise<RepositoryLink | null> {
  const link = await scope.services.store.findRepositoryLink(orgId, repo);
  return link !== null && (view === 'code-host' || link.host === 'github') ? link : null;
}

/** How a link is named in audit lines: a GitHub one as ever, another host's by host and path. */
function auditedRepository(link: RepositoryLink) {
  return link.host === 'github'
    ? { githubRepo: link.repository }
    : { host: link.host, repository: link.repository };
}

const getLink =
  (view: LinkView): RouteHandler =>
  async (scope) => {
    const { identity, repo } = await linkTarget(scope);
    const link = await findLink(scope, identity.orgId, repo, view);
    if (!link) throw new ApiError(404, ERRORS.notFound);
    return answer(scope, link, 200, view);
  };

/**
 * Links the repository, or replaces its link: a new token (or API URL) for the same host and
 * repository keeps who made the link and when; another host or repository makes a new link,
 * made by this user now, whose failures start empty. The token is sealed before it is stored and never answered; the code host is not called (it may be
 * down: a wrong token shows as a failed delivery). Order: as {@link linkTarget}, then `400`
 * body, then `400` an `api_url` whose host is or resolves to a non-public address the
 * operator did not allow (`allowPrivateCodeHosts`); the outbox checks again at every
 * connection.
 */
async function putLink(
  scope: RequestScope,
  { identity, repo }: { identity: SessionIdentity; repo: string },
  input: LinkInput,
  view: LinkView,
) {
  const { store, audit, clock, settings, codeHosts } = scope.services;
  const host = FEEDBACK_HOSTS[input.host];
  if (!host.isRepositoryPath(input.repository)) {
    throw new ApiError(400, REPOSITORY_LINK_ERRORS.repository);
  }
  const base = input.apiUrl === undefined ? host.defaultApiUrl : (apiBase(input.apiUrl) as string);
  if (base === null) throw new ApiError(400, REPOSITORY_LINK_ERRORS.apiUrlRequired);
  if (input.apiUrl !== undefined) {
    const verdict = await checkCodeHostUrl(new URL(base), codeHosts.policy, codeHosts.resolve);
    if (!verdict.allowed) throw new ApiError(400, REPOSITORY_LINK_ERRORS.nonPublicApiUrl);
  }
  const existing = await store.findRepositoryLink(identity.orgId, repo);
  const kept = sameTarget(existing, input) ? existing : null;
  const now = wholeSeconds(clock.now());
  const link: RepositoryLink = {
    orgId: identity.orgId,
    repo,
    host: input.host,
    repository: input.repository,
    apiUrl: base,
    credential: encryptCredential(
      input.token,
      repositoryLinkCredentialContext(identity.orgId, repo),
      settings,
    ),
    credentialHint: credentialHint(input.token),
    createdBy: kept?.createdBy ?? identity.userId,
    createdAt: kept?.createdAt ?? now,
    updatedAt: now,
  };
  await store.putRepositoryLink(link);
  audit.record({
    type: 'repository.link',
    orgId: identity.orgId,
    repo,
    ...auditedRepository(link),
    apiUrl: link.apiUrl,
    by: identity.userId,
  });
  return answer(scope, link, 200, view);
}

const deleteLink =
  (view: LinkView): RouteHandler =>
  async (scope) => {
    const { identity, repo } = await linkTarget(scope);
    const { store, audit } = scope.services;
    const link = await findLink(scope, identity.orgId, repo, view);
    const removed = link !== null && (await store.deleteRepositoryLink(identity.orgId, repo));
    if (!link || !removed) throw new ApiError(404, ERRORS.notFound);
    audit.record({
      type: 'repository.unlink',
      orgId: identity.orgId,
      repo,
      ...auditedRepository(link),
      by: identity.userId,
    });
    return emptyReply(204);
  };

/**
 * `GET /v1/repos/github-link?org&repo`: the repository's link to a GitHub repository, with the
 * latest failed deliveries; `404` when there is none (or it links another host). Admins and
 * owners, through a session.
 */
export const getRepositoryLink: RouteHandler = getLink('github');

/**
 * `POST /v1/repos/github-link?org&repo` `{github_repo, token, api_url?}`: links the repository
 * to a GitHub repository (replacing any link, like `POST /v1/organisation/github-link`); see
 * {@link putLink}.
 */
export const linkRepository: RouteHandler = async (scope) => {
  const target = await linkTarget(scope);
  const body = parseBody(githubLinkBody, await readJsonBody(scope.request));
  return putLink(
    scope,
    target,
    { host: 'github', repository: body.github_repo, token: body.token, apiUrl: body.api_url },
    'github',
  );
};

/**
 * `DELETE /v1/repos/github-link?org&repo`: removes the GitHub link and its credential (`404`
 * when there is none). Deliveries already queued then fail for want of a link.
 */
export const unlinkRepository: RouteHandler = deleteLink('github');

/**
 * `GET /v1/repos/code-host-link?org&repo`: the repository's link to its code host (GitHub,
 * GitLab, Gitea), with the latest failed deliveries; `404` when there is none.
 */
export const getCodeHostLink: RouteHandler = getLink('code-host');

/**
 * `POST /v1/repos/code-host-link?org&repo` `{host, repository, token, api_url?}`: links the
 * repository to a repository on `host` (replacing any link); `api_url` defaults to the host's
 * public API and is required for Gitea and Forgejo. See {@link putLink}.
 */
export const postCodeHostLink: RouteHandler = async (scope) => {
  const target = await linkTarget(scope);
  const body = parseBody(codeHostLinkBody, await readJsonBody(scope.request));
  return putLink(
    scope,
    target,
    { host: body.host, repository: body.repository, token: body.token, apiUrl: body.api_url },
    'code-host',
  );
};

/** `DELETE /v1/repos/code-host-link?org&repo`: removes the link and its credential. */
export const deleteCodeHostLink: RouteHandler = deleteLink('code-host');
