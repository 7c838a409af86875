import { z } from 'zod';
import { MAX_CI_TRUSTS } from '../../ci-identity/ci-trust.js';
import {
  type Carryforward,
  carryforwardJson,
  parseCarryforward,
} from '../../executions/carryforward.js';
import {
  DEFAULT_PARTS_DEADLINE_MINUTES,
  type ExpectedParts,
  PARTS_DEADLINE_MINUTES,
  parseExpectedParts,
} from '../../executions/parts.js';
import { normaliseWebUrl } from '../../executions/web-url.js';
import { DEFAULT_PATCH_TARGET } from '../../gate/patch-rule.js';
import { truncateToHundredths } from '../../numbers/truncate-decimal.js';
import { CI_PROVIDERS, type CiTrust, type RepositorySettings } from '../../storage/store.js';
import { wholeSeconds } from '../../time/timestamp.js';
import { ApiError, ERRORS } from '../api-error.js';
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
  /** The parts a commit's report waits for: names, a count, or null when unset. */
  expected_parts: string[] | number | null;
  /** Minutes a report waits for its parts; null for covgate's default. */
  parts_deadline_minutes: number | null;
  /** The minutes that apply: `parts_deadline_minutes`, else 60. */
  effective_parts_deadline_minutes: number;
  /** The expected parts carried forward when missing: `true` for all, names, or null. */
  carryforward_parts: true | string[] | null;
  /** The CI identities whose OIDC ID tokens may post its runs (empty: none). */
  ci_trust: CiTrust[];
}

function settingsToJson(repo: string, settings: RepositorySettings | null): RepositorySettingsJson {
  const patchTarget = settings?.patchTarget ?? null;
  return {
    repo,
    patch_target: patchTarget,
    effective_patch_target: patchTarget ?? DEFAULT_PATCH_TARGET,
    web_url: settings?.webUrl ?? null,
    expected_parts: expectedJson(settings?.expectedParts ?? null),
    parts_deadline_minutes: settings?.partsDeadlineMinutes ?? null,
    effective_parts_deadline_minutes:
      settings?.partsDeadlineMinutes ?? DEFAULT_PARTS_DEADLINE_MINUTES,
    carryforward_parts:
      settings?.carryforwardParts == null ? null : carryforwardJson(settings.carryforwardParts),
    ci_trust: settings?.ciTrust ?? [],
  };
}

function expectedJson(expected: ExpectedParts | null): string[] | number | null {
  return expected === null ? null : 'names' in expected ? expected.names : expected.count;
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

/** Visible characters, no control character: what a ref or an environment name can be. */
const VISIBLE = /^[^\p{Cc}\s]+$/u;

const ciTrustEntry = z
  .object({
    provider: z.enum(CI_PROVIDERS),
    // GitHub `owner/name`; GitLab `group/subgroup/project` (any depth).
    repository: z
      .string()
      .max(255)
      .regex(/^[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)+$/),
    ref: z
      .string()
      .max(255)
      .regex(/^refs\//)
      .regex(VISIBLE)
      .nullable()
      .optional(),
    environment: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[^\p{Cc}]+$/u)
      .nullable()
      .optional(),
  })
  .strict();

const settingsBody = z.object({
  org: z.string().min(1).optional(),
  repo: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^\p{Cc}]+$/u),
  patch_target: z.number().min(0).max(100).nullable().optional(),
  web_url: z.string().nullable().optional(),
  expected_parts: z.unknown().optional(),
  parts_deadline_minutes: z
    .number()
    .int()
    .min(PARTS_DEADLINE_MINUTES.min)
    .max(PARTS_DEADLINE_MINUTES.max)
    .nullable()
    .optional(),
  carryforward_parts: z.unknown().optional(),
  ci_trust: z.array(ciTrustEntry).max(MAX_CI_TRUSTS).nullable().optional(),
});

/** The message of a `PATCH` that changes nothing. */
export const NOTHING_TO_CHANGE =
  'missing required parameter: patch_target, web_url, expected_parts, parts_deadline_minutes, carryforward_parts or ci_trust';

/**
 * `PATCH /v1/repos/settings` `{org?, repo, patch_target?, web_url?, expected_parts?,
 * parts_deadline_minutes?, carryforward_parts?, ci_trust?}`: sets the repository's default
 * patch target (`null` returns to covgate's default), truncated to hundredths like every
 * percentage, its code-host URL (`null` removes it; either way a run's `repo_url` no longer
 * sets it), the parts a commit's report waits for (names or a count), how long, and which of
 * them are carried forward when missing (`true` or names; docs/decisions.md, "Parts of one
 * commit" and "Carryforward of a missing part"), and the CI identities trusted to post its runs with an OIDC ID token
 * (`null` or `[]`: none; only a session may change them); a field left out keeps its value,
 * and one of them is required. An
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
  const expected = parseExpected(input.expected_parts);
  const carryforward = parseCarryforwardParts(input.carryforward_parts);
  if (
    input.patch_target === undefined &&
    webUrl === undefined &&
    expected === undefined &&
    input.parts_deadline_minutes === undefined &&
    carryforward === undefined &&
    input.ci_trust === undefined
  ) {
    throw new ApiError(400, NOTHING_TO_CHANGE);
  }
  // Who may post without a token is decided by people, never by a CI token: a leaked token
  // must not be able to grant lasting access to another repository's jobs.
  if (input.ci_trust !== undefined && identity.kind !== 'session') {
    throw new ApiError(403, ERRORS.forbidden);
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
    expectedParts: expected === undefined ? (current?.expectedParts ?? null) : expected,
    partsDeadlineMinutes:
      input.parts_deadline_minutes === undefined
        ? (current?.partsDeadlineMinutes ?? null)
        : input.parts_deadline_minutes,
    carryforwardParts:
      carryforward === undefined ? (current?.carryforwardParts ?? null) : carryforward,
    ciTrust: input.ci_trust === undefined ? (current?.ciTrust ?? null) : ciTrustOf(input.ci_trust),
    updatedAt: wholeSeconds(clock.now()),
  };
  await store.saveRepositorySettings(settings);
  return jsonReply(200, settingsToJson(input.repo, settings));
};

/** `expected_parts` as sent: undefined when absent, null to remove, names or a count, or `400`. */
function parseExpected(value: unknown): ExpectedParts | null | undefined {
  if (value === undefined || value === null) return value;
  const expected = parseExpectedParts(value);
  if (expected === null) throw new ApiError(400, 'invalid parameter: expected_parts');
  return expected;
}

/** `carryforward_parts` as sent: undefined when absent, null to remove, `true` or names, or `400`. */
function parseCarryforwardParts(value: unknown): Carryforward | null | undefined {
  if (value === undefined || value === null) return value;
  const carryforward = parseCarryforward(value);
  if (carryforward === null) throw new ApiError(400, 'invalid parameter: carryforward_parts');
  return carryforward;
}

/** `ci_trust` as sent, absent `ref` and `environment` made null; null or empty: none. */
function ciTrustOf(entries: z.infer<typeof ciTrustEntry>[] | null): CiTrust[] | null {
  if (entries === null || entries.length === 0) return null;
  return entries.map((entry) => ({
    provider: entry.provider,
    repository: entry.repository,
    ref: entry.ref ?? null,
    environment: entry.environment ?? null,
  }));
}

/** `web_url` as sent: undefined when absent, null to remove, else a kept URL or `400`. */
function parseWebUrl(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const url = normaliseWebUrl(value);
  if (url === null) throw new ApiError(400, 'invalid parameter: web_url');
  return url;
}
