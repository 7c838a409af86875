import { z } from 'zod';
import {
  GITHUB_ORG_LOGIN,
  HOST_ORGANISATIONS,
  normaliseOrganisationPath,
  organisationLinkToJson,
} from '../../organisations/organisation-link.js';
import { CODE_HOST_KINDS, type CodeHostKind, type OrganisationLink } from '../../storage/store.js';
import { wholeSeconds } from '../../time/timestamp.js';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticateSessionOnly } from '../auth/authenticate.js';
import { emptyReply, jsonReply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RequestScope, RouteHandler } from '../services.js';
import { parseBody } from '../validation.js';

/** Public messages of the organisation link routes. */
export const ORGANISATION_LINK_ERRORS = {
  /** The GitHub route's refusal, as it always said. */
  githubTaken: 'that GitHub organisation is linked to another organisation',
  taken: 'that organisation is linked to another organisation',
  organisation: 'invalid parameter: organisation',
} as const;

const githubLinkBody = z.object({ github_org: z.string().regex(GITHUB_ORG_LOGIN) });

const codeHostLinkBody = z.object({
  host: z.enum(CODE_HOST_KINDS as [CodeHostKind, ...CodeHostKind[]]),
  organisation: z.string().max(1024),
});

/**
 * Which route a link is read through: `github` (`/v1/organisation/github-link`, GitHub links
 * only, `github_org`) or `code-host` (`/v1/organisation/code-host-link`, any host, `host` and
 * `organisation`).
 */
type LinkView = 'github' | 'code-host';

/** The organisation's link as `view` sees it: the GitHub routes see no other host's. */
async function findLink(
  scope: RequestScope,
  orgId: string,
  view: LinkView,
): Promise<OrganisationLink | null> {
  const link = await scope.services.store.findOrganisationLink(orgId);
  return link !== null && (view === 'code-host' || link.host === 'github') ? link : null;
}

/** How a link is named in audit lines: a GitHub one as ever, another host's by host and path. */
function auditedOrganisation(link: OrganisationLink) {
  return link.host === 'github'
    ? { githubOrg: link.organisation }
    : { host: link.host, organisation: link.organisation };
}

const getLink =
  (view: LinkView): RouteHandler =>
  async (scope) => {
    const identity = await authenticateSessionOnly(scope);
    const link = await findLink(scope, identity.orgId, view);
    if (!link) throw new ApiError(404, ERRORS.notFound);
    return jsonReply(200, organisationLinkToJson(link, view));
  };

/**
 * Links the session's organisation to `organisation` on `host` (in lower case), replacing its
 * link whatever its host. Order: `401`, `403` (API token, or a role below owner), `400` body,
 * `409` the host organisation is linked to another organisation. Members of it join as
 * `member` at their next sign-in through that host.
 */
const postLink =
  (view: LinkView, readBody: (body: unknown) => { host: CodeHostKind; organisation: string }) =>
  async (scope: RequestScope) => {
    const identity = await authenticateSessionOnly(scope, 'owner');
    const { host, organisation } = readBody(await readJsonBody(scope.request));
    if (!HOST_ORGANISATIONS[host].isPath(organisation)) {
      throw new ApiError(400, ORGANISATION_LINK_ERRORS.organisation);
    }
    const { store, audit, clock } = scope.services;
    const link: OrganisationLink = {
      orgId: identity.orgId,
      host,
      organisation: normaliseOrganisationPath(organisation),
      linkedBy: identity.userId,
      linkedAt: wholeSeconds(clock.now()),
    };
    if ((await store.linkOrganisation(link)) === 'taken') {
      throw new ApiError(
        409,
        view === 'github' ? ORGANISATION_LINK_ERRORS.githubTaken : ORGANISATION_LINK_ERRORS.taken,
      );
    }
    audit.record({
      type: 'organisation.link',
      orgId: identity.orgId,
      ...auditedOrganisation(link),
      by: identity.userId,
    });
    return jsonReply(200, organisationLinkToJson(link, view));
  };

/** Owners remove the link (`404` when there is none); the members who joined through it stay. */
const deleteLink =
  (view: LinkView): RouteHandler =>
  async (scope) => {
    const identity = await authenticateSessionOnly(scope, 'owner');
    const { store, audit } = scope.services;
    const link = await findLink(scope, identity.orgId, view);
    const removed = link !== null && (await store.unlinkOrganisation(identity.orgId));
    if (!link || !removed) throw new ApiError(404, ERRORS.notFound);
    audit.record({
      type: 'organisation.unlink',
      orgId: identity.orgId,
      ...auditedOrganisation(link),
      by: identity.userId,
    });
    return emptyReply(204);
  };

/**
 * `GET /v1/organisation/github-link`: the session organisation's link to a GitHub
 * organisation; any member may read it, `404` when there is none (or it links another host).
 */
export const getGithubLink: RouteHandler = getLink('github');

/** `POST /v1/organisation/github-link` `{github_org}`: owners link a GitHub organisation. */
export const linkGithubOrg: RouteHandler = postLink('github', (body) => ({
  host: 'github',
  organisation: parseBody(githubLinkBody, body).github_org,
}));

/** `DELETE /v1/organisation/github-link`: owners remove a link to a GitHub organisation. */
export const deleteGithubLink: RouteHandler = deleteLink('github');

/**
 * `GET /v1/organisation/code-host-link`: the session organisation's link to an organisation
 * on a code host (GitHub, GitLab, Gitea); any member may read it, `404` when there is none.
 */
export const getOrganisationLink: RouteHandler = getLink('code-host');

/**
 * `POST /v1/organisation/code-host-link` `{host, organisation}`: owners link a GitHub or Gitea
 * organisation, or a GitLab group by its full path.
 */
export const postOrganisationLink: RouteHandler = postLink('code-host', (body) =>
  parseBody(codeHostLinkBody, body),
);

/** `DELETE /v1/organisation/code-host-link`: owners remove the link, whatever its host. */
export const deleteOrganisationLink: RouteHandler = deleteLink('code-host');
