import { checkOrgAccess } from '../../auth/identity.js';
import { infra } from '../../infrastructure/infra.js';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import { jsonReply } from '../reply.js';
import type { RouteHandler } from '../services.js';
import { executionToJson } from './execution-json.js';
import { requireExecuteScope, requireQueryParameter } from './executions.js';

/**
 * `GET /v1/repos?org=`: the organisation's repositories with their totals and newest record,
 * most recently active first, read from the per-repository counters. Same credentials and
 * check order as `GET /v1/executions`: 401 credential, 403 token without `execute`, 400
 * missing `org`, 403 organisation mismatch.
 */
export const listRepos: RouteHandler = async (scope) => {
  const identity = await authenticate(scope);
  requireExecuteScope(identity);
  const org = requireQueryParameter(scope.query, 'org');
  if (checkOrgAccess(identity, org) === 'forbidden') throw new ApiError(403, ERRORS.forbidden);
  const { store, logger } = scope.services;
  const repos = await infra(logger, 'executions', () => store.listRepositories(identity.orgId));
  return jsonReply(200, {
    repos: repos.map((summary) => ({
      repo: summary.repo,
      total: summary.total,
      latest: executionToJson(summary.latest),
    })),
  });
};
