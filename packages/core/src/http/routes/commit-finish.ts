import { z } from 'zod';
import { COMPONENT } from '../../executions/component.js';
import { executionToJson } from '../../executions/execution-json.js';
import { ApiError } from '../api-error.js';
import { requireExecuteScope, requireOrgAccess } from '../auth/access.js';
import { authenticate } from '../auth/authenticate.js';
import { requireSessionRole } from '../auth/roles.js';
import { resettleReport } from '../parts/commit-parts.js';
import { jsonReply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RouteHandler } from '../services.js';
import { parseBody } from '../validation.js';

const finishBody = z.object({
  org: z.string().min(1).optional(),
  repo: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^\p{Cc}]+$/u),
  commit: z
    .string()
    .regex(/^[0-9a-fA-F]{7,64}$/)
    .transform((commit) => commit.toLowerCase()),
  component: COMPONENT.nullable().optional(),
});

/** The answer to `finish` for a commit of which no part arrived. */
export const NO_PARTS = 'no part of this commit was received';

/**
 * `POST /v1/executions/finish` `{org?, repo, commit, component?}`: closes a commit's report, as
 * a parallel build's webhook does (docs/decisions.md, "Parts of one commit and
 * completeness"): no more parts are coming, so the report is judged on the parts it has: its
 * merged verdict, or `fail` with `incomplete: missing <names>` when expected parts are
 * missing. Answers the commit's run (`200`); `404` when no part of it arrived. Finishing twice
 * changes nothing. Same credentials as `POST /v1/executions`.
 */
export const finishCommit: RouteHandler = async (scope) => {
  const identity = await authenticate(scope);
  requireExecuteScope(identity);
  requireSessionRole(identity, 'admin');
  const input = parseBody(finishBody, await readJsonBody(scope.request));
  if (input.org !== undefined) requireOrgAccess(identity, input.org);
  const { store } = scope.services;
  const report = await store.findCommitReport({
    orgId: identity.orgId,
    repo: input.repo,
    commit: input.commit,
    component: input.component ?? null,
  });
  if (report === null) throw new ApiError(404, NO_PARTS);
  const settled = await resettleReport(scope.services, report, (parts) => ({
    ...parts,
    closed: true,
  }));
  return jsonReply(200, executionToJson(settled));
};
