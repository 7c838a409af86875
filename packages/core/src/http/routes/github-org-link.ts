import { z } from 'zod';
import {
  GITHUB_ORG_LOGIN,
  githubOrgLinkToJson,
  normaliseGithubOrg,
} from '../../organisations/github-org-link.js';
import type { GithubOrgLink } from '../../storage/store.js';
import { wholeSeconds } from '../../time/timestamp.js';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticateSessionOnly } from '../auth/authenticate.js';
import { emptyReply, jsonReply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RouteHandler } from '../services.js';
import { parseBody } from '../validation.js';

/** Public messages of the GitHub organisation link routes. */
export const GITHUB_LINK_ERRORS = {
  taken: 'that GitHub organisation is linked to another organisation',
} as const;

const linkBody = z.object({ github_org: z.string().regex(GITHUB_ORG_LOGIN) });

/**
 * `GET /v1/organisation/github-link`: the session organisation's link to a GitHub
 * organisation; any member may read it, `404` when there is none.
 */
export const getGithubLink: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope);
  const { store } = scope.services;
  const link = await store.findGithubOrgLink(identity.orgId);
  if (!link) throw new ApiError(404, ERRORS.notFound);
  return jsonReply(200, githubOrgLinkToJson(link));
};

/**
 * `POST /v1/organisation/github-link` `{github_org}`: owners link the organisation (replacing
 * its link). Order: `401`, `403` (API token, or a role below owner), `400` body, `409` the
 * GitHub organisation is linked to another organisation. Members of the GitHub organisation
 * join as `member` at their next GitHub sign-in.
 */
export const linkGithubOrg: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope, 'owner');
  const body = parseBody(linkBody, await readJsonBody(scope.request));
  const { store, audit, clock } = scope.services;
  const link: GithubOrgLink = {
    orgId: identity.orgId,
    githubOrg: normaliseGithubOrg(body.github_org),
    linkedBy: identity.userId,
    linkedAt: wholeSeconds(clock.now()),
  };
  const outcome = await store.linkGithubOrg(link);
  if (outcome === 'taken') throw new ApiError(409, GITHUB_LINK_ERRORS.taken);
  audit.record({
    type: 'organisation.link',
    orgId: identity.orgId,
    githubOrg: link.githubOrg,
    by: identity.userId,
  });
  return jsonReply(200, githubOrgLinkToJson(link));
};

/**
 * `DELETE /v1/organisation/github-link`: owners remove the link (`404` when there is none).
 * The members who joined through it stay members.
 */
export const deleteGithubLink: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope, 'owner');
  const { store, audit } = scope.services;
  const link = await store.findGithubOrgLink(identity.orgId);
  const removed = link !== null && (await store.unlinkGithubOrg(identity.orgId));
  if (!link || !removed) throw new ApiError(404, ERRORS.notFound);
  audit.record({
    type: 'organisation.unlink',
    orgId: identity.orgId,
    githubOrg: link.githubOrg,
    by: identity.userId,
  });
  return emptyReply(204);
};
