import type { OAuthSettings } from '../../oauth/oauth-options.js';
import type { WebhookSettings } from '../../webhooks/webhook-options.js';
import type { Route } from '../router.js';
import type { RouteHandler } from '../services.js';
import { postAuthValidate } from './auth-validate.js';
import { getBadge } from './badge.js';
import { getCiTrust } from './ci-trust.js';
import { finishCommit } from './commit-finish.js';
import { skipCommit } from './commit-skip.js';
import { getCurrentSession, switchOrganisation } from './current-session.js';
import { getExecution } from './execution-detail.js';
import { getExecutionFile } from './execution-file.js';
import { getExecutionFileSource } from './execution-file-source.js';
import { listExecutionSeries } from './execution-series.js';
import { createExecution, listExecutions } from './executions.js';
import { getHealth, getMetrics, getReadiness } from './health.js';
import { getInvitePage, postInvite } from './invite-page.js';
import { acceptInvite, createInvite, listInvites, revokeInvite } from './invites.js';
import { changeMemberRole, listMembers, removeMember } from './members.js';
import { oauthRoutes } from './oauth.js';
import {
  deleteGithubLink,
  deleteOrganisationLink,
  getGithubLink,
  getOrganisationLink,
  linkGithubOrg,
  postOrganisationLink,
} from './organisation-link.js';
import { getOrganisationSettings, patchOrganisationSettings } from './organisation-settings.js';
import { postOrganisation } from './organisations.js';
import { getRepoHeadline } from './repo-headline.js';
import { getRepoSettings, patchRepoSettings } from './repo-settings.js';
import { listRepos } from './repos.js';
import {
  deleteCodeHostLink,
  getCodeHostLink,
  getRepositoryLink,
  linkRepository,
  postCodeHostLink,
  unlinkRepository,
} from './repository-link.js';
import { createSession, deleteSession } from './sessions.js';
import { getSignInLink, postSignInLink } from './sign-in-link.js';
import {
  createToken,
  getToken,
  listTokens,
  patchToken,
  revokeToken,
  rotateToken,
} from './tokens.js';
import { webhookRoutes } from './webhooks.js';

/** The optional features that add routes: OAuth login (`501` without it) and webhooks. */
export interface RouteFeatures {
  oauth?: OAuthSettings | undefined;
  webhooks: WebhookSettings;
}

/** Every route of the API, in one table. */
export function coreRoutes(features: RouteFeatures): Route<RouteHandler>[] {
  return [
    { method: 'GET', pattern: '/health', handler: getHealth },
    { method: 'GET', pattern: '/health/ready', handler: getReadiness },
    { method: 'GET', pattern: '/health/metrics', handler: getMetrics },
    { method: 'POST', pattern: '/v1/auth/validate', handler: postAuthValidate },
    { method: 'GET', pattern: '/v1/executions', handler: listExecutions },
    { method: 'POST', pattern: '/v1/executions', handler: createExecution },
    { method: 'GET', pattern: '/v1/executions/series', handler: listExecutionSeries },
    { method: 'POST', pattern: '/v1/executions/finish', handler: finishCommit },
    { method: 'POST', pattern: '/v1/executions/skip', handler: skipCommit },
    { method: 'GET', pattern: '/v1/executions/{id}', handler: getExecution },
    { method: 'GET', pattern: '/v1/executions/{id}/files/{path}', handler: getExecutionFile },
    {
      method: 'GET',
      pattern: '/v1/executions/{id}/files/{path}/source',
      handler: getExecutionFileSource,
    },
    { method: 'POST', pattern: '/v1/organisations', handler: postOrganisation },
    { method: 'GET', pattern: '/v1/repos', handler: listRepos },
    { method: 'GET', pattern: '/v1/repos/headline', handler: getRepoHeadline },
    { method: 'GET', pattern: '/v1/repos/settings', handler: getRepoSettings },
    { method: 'PATCH', pattern: '/v1/repos/settings', handler: patchRepoSettings },
    { method: 'GET', pattern: '/v1/repos/ci-trust', handler: getCiTrust },
    { method: 'GET', pattern: '/v1/repos/github-link', handler: getRepositoryLink },
    { method: 'POST', pattern: '/v1/repos/github-link', handler: linkRepository },
    { method: 'DELETE', pattern: '/v1/repos/github-link', handler: unlinkRepository },
    { method: 'GET', pattern: '/v1/repos/code-host-link', handler: getCodeHostLink },
    { method: 'POST', pattern: '/v1/repos/code-host-link', handler: postCodeHostLink },
    { method: 'DELETE', pattern: '/v1/repos/code-host-link', handler: deleteCodeHostLink },
    { method: 'GET', pattern: '/v1/session', handler: getCurrentSession },
    { method: 'POST', pattern: '/v1/session/organisation', handler: switchOrganisation },
    { method: 'GET', pattern: '/v1/members', handler: listMembers },
    { method: 'PATCH', pattern: '/v1/members/{user_id}', handler: changeMemberRole },
    { method: 'DELETE', pattern: '/v1/members/{user_id}', handler: removeMember },
    { method: 'GET', pattern: '/v1/organisation/github-link', handler: getGithubLink },
    { method: 'POST', pattern: '/v1/organisation/github-link', handler: linkGithubOrg },
    { method: 'DELETE', pattern: '/v1/organisation/github-link', handler: deleteGithubLink },
    { method: 'GET', pattern: '/v1/organisation/code-host-link', handler: getOrganisationLink },
    { method: 'POST', pattern: '/v1/organisation/code-host-link', handler: postOrganisationLink },
    {
      method: 'DELETE',
      pattern: '/v1/organisation/code-host-link',
      handler: deleteOrganisationLink,
    },
    { method: 'GET', pattern: '/v1/organisation/settings', handler: getOrganisationSettings },
    { method: 'PATCH', pattern: '/v1/organisation/settings', handler: patchOrganisationSettings },
    { method: 'GET', pattern: '/v1/invites', handler: listInvites },
    { method: 'POST', pattern: '/v1/invites', handler: createInvite },
    { method: 'POST', pattern: '/v1/invites/accept', handler: acceptInvite },
    { method: 'DELETE', pattern: '/v1/invites/{id}', handler: revokeInvite },
    { method: 'POST', pattern: '/v1/sessions/create', handler: createSession },
    { method: 'DELETE', pattern: '/v1/sessions/{session_id}', handler: deleteSession },
    { method: 'GET', pattern: '/v1/tokens', handler: listTokens },
    { method: 'POST', pattern: '/v1/tokens', handler: createToken },
    { method: 'GET', pattern: '/v1/tokens/{id}', handler: getToken },
    { method: 'PATCH', pattern: '/v1/tokens/{id}', handler: patchToken },
    { method: 'DELETE', pattern: '/v1/tokens/{id}', handler: revokeToken },
    { method: 'POST', pattern: '/v1/tokens/{id}/rotate', handler: rotateToken },
    { method: 'GET', pattern: '/v1/badge/{org}/{repo}', handler: getBadge },
    ...webhookRoutes(features.webhooks),
    { method: 'GET', pattern: '/auth/link', handler: getSignInLink },
    { method: 'POST', pattern: '/auth/link', handler: postSignInLink },
    { method: 'GET', pattern: '/auth/invite', handler: getInvitePage },
    { method: 'POST', pattern: '/auth/invite', handler: postInvite },
    ...oauthRoutes(features.oauth),
  ];
}
