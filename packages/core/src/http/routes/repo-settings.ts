import { z } from 'zod';
import { normaliseWebUrl } from '../../executions/web-url.js';
import { DEFAULT_PATCH_TARGET } from '../../gate/patch-rule.js';
import { truncateToHundredths } from '../../numbers/truncate-decimal.js';
import type { RepositorySettings } from '../../storage/store.js';
import { wholeSeconds } from '../../time/timestamp.js';
import { ApiError } from '../api-error.js';
import {
  authenticateRepositoryRead,
  requireExecuteScope,
  requireOrgAccess,
} from '../auth/access.js';
import { authenticate } from '../auth/authenticate.js';
import { requireSessionRole } from '../auth/roles.js';
import { jsonReply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RouteHandler } from '../services.js';
import { parseBody } from '../validation.js';

/** The settings of a repository as the API shows them. */
export interface RepositorySettingsJson {
  repo: string;
  /** The repository's default patch target, or null when runs fall back to covgate's. */
  patch_target: number | null;
  /** The target a run without its own gets: `patch_target`, else covgate's default. */
  effective_patch_target: number;
  /** The repository's URL on its code host, or null. */
  web_url: string | null;
}

function settingsToJson(repo: string, settings: RepositorySettings | null): RepositorySettingsJson {
  const patchTarget = settings?.patchTarget ?? null;
  return {
    repo,
    patch_target: patchTarget,
    effective_patch_target: patchTarget ?? DEFAULT_PATCH_TARGET,
    web_url: settings?.webUrl ?? null,
  };
}

/**
 * `GET /v1/repos/settings?org&repo`: the repository's settings (a repository never
 * configured answers its defaults). Same credentials and check order as `GET /v1/executions`.
 */
export const getRepoSettings: RouteHandler = async (scope) => {
  const { identity, org, repo } = await authenticateRepositoryRead(scope);
  requireOrgAccess(identity, org);
  const { store } = scope.services;
  const settings = await store.findRepositorySettings(identity.orgId, repo);
  return jsonReply(200, settingsToJson(repo, settings));
};

const settingsBody = z.object({
  org: z.string().min(1).optional(),
  repo: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^\p{Cc}]+$/u),
  patch_target: z.number().min(0).max(100).nullable().optional(),
  web_url: z.string().nullable().optional(),
});

/** The message of a `PATCH` that changes nothing. */
export const NOTHING_TO_CHANGE = 'missing required parameter: patch_target or web_url';

/**
 * `PATCH /v1/repos/settings` `{org?, repo, patch_target?, web_url?}`: sets the repository's
 * default patch target (`null` returns to covgate's default), truncated to hundredths like
 * every percentage, and its code-host URL (`null` removes it; either way a run's `repo_url`
 * no longer sets it); a field left out keeps its value, and one of the two is required. An
 * `execute` token (the CI that records the runs could send a target per run anyway) or a
 * session of an admin or owner. Check order: 401, 403 scope or role, 400 body, 403
 * organisation mismatch.
 */
export const patchRepoSettings: RouteHandler = async (scope) => {
  const identity = await authenticate(scope);
  requireExecuteScope(identity);
  requireSessionRole(identity, 'admin');
  const input = parseBody(settingsBody, await readJsonBody(scope.request));
  const webUrl = parseWebUrl(input.web_url);
  if (input.patch_target === undefined && webUrl === undefined) {
    throw new ApiError(400, NOTHING_TO_CHANGE);
  }
  if (input.org !== undefined) requireOrgAccess(identity, input.org);
  const { store, clock } = scope.services;
  const current = await store.findRepositorySettings(identity.orgId, input.repo);
  const settings: RepositorySettings = {
    orgId: identity.orgId,
    repo: input.repo,
    patchTarget:
      input.patch_target === undefined
        ? (current?.patchTarget ?? null)
        : input.patch_target === null
          ? null
          : truncateToHundredths(input.patch_target) / 100,
    webUrl: webUrl === undefined ? (current?.webUrl ?? null) : webUrl,
    webUrlSource: webUrl === undefined ? (current?.webUrlSource ?? null) : 'api',
    updatedAt: wholeSeconds(clock.now()),
  };
  await store.saveRepositorySettings(settings);
  return jsonReply(200, settingsToJson(input.repo, settings));
};

/** `web_url` as sent: undefined when absent, null to remove, else a kept URL or `400`. */
function parseWebUrl(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const url = normaliseWebUrl(value);
  if (url === null) throw new ApiError(400, 'invalid parameter: web_url');
  return url;
}
