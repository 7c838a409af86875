import { z } from 'zod';
import { truncateToHundredths } from '../../numbers/truncate-decimal.js';
import { organisationSettingsToJson } from '../../organisations/organisation-minimums.js';
import type { OrganisationSettings } from '../../storage/store.js';
import { wholeSeconds } from '../../time/timestamp.js';
import { ApiError } from '../api-error.js';
import { requireExecuteScope } from '../auth/access.js';
import { authenticate, authenticateSessionOnly } from '../auth/authenticate.js';
import { jsonReply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RouteHandler } from '../services.js';
import { parseBody } from '../validation.js';

const percent = z.number().min(0).max(100).nullable().optional();

const settingsBody = z.object({ min_patch_target: percent, min_project_target: percent }).strict();

/** The message of a `PATCH` that changes nothing. */
export const NO_MINIMUM_GIVEN =
  'missing required parameter: min_patch_target or min_project_target';

/**
 * `GET /v1/organisation/settings`: the organisation's minimums (never set: `null`s). Any member's
 * session, or an `execute` token of the organisation (the CLI shows them in `config show`).
 * Order: `401`, `403` token without `execute`.
 */
export const getOrganisationSettings: RouteHandler = async (scope) => {
  const identity = await authenticate(scope);
  requireExecuteScope(identity);
  const settings = await scope.services.store.findOrganisationSettings(identity.orgId);
  return jsonReply(200, organisationSettingsToJson(settings));
};

/**
 * `PATCH /v1/organisation/settings` `{min_patch_target?, min_project_target?}`: owners set the
 * lowest patch and project targets no run of the organisation is judged below (`null` removes
 * one; a field left out keeps its value; one is required), truncated to hundredths like every
 * percentage. Order: `401`, `403` (API token, or a role below owner), `400` body. Writes an
 * `organisation.settings` audit line.
 */
export const patchOrganisationSettings: RouteHandler = async (scope) => {
  const identity = await authenticateSessionOnly(scope, 'owner');
  const body = await readJsonBody(scope.request);
  refuseUnknownField(body);
  const input = parseBody(settingsBody, body);
  if (input.min_patch_target === undefined && input.min_project_target === undefined) {
    throw new ApiError(400, NO_MINIMUM_GIVEN);
  }
  const { store, audit, clock } = scope.services;
  const current = await store.findOrganisationSettings(identity.orgId);
  const settings: OrganisationSettings = {
    orgId: identity.orgId,
    minPatchTarget: chosen(input.min_patch_target, current?.minPatchTarget ?? null),
    minProjectTarget: chosen(input.min_project_target, current?.minProjectTarget ?? null),
    updatedBy: identity.userId,
    updatedAt: wholeSeconds(clock.now()),
  };
  await store.saveOrganisationSettings(settings);
  audit.record({
    type: 'organisation.settings',
    orgId: identity.orgId,
    minPatchTarget: auditPercent(settings.minPatchTarget),
    minProjectTarget: auditPercent(settings.minProjectTarget),
    by: identity.userId,
  });
  return jsonReply(200, organisationSettingsToJson(settings));
};

/** The value sent (truncated to hundredths), else the current one. */
function chosen(sent: number | null | undefined, current: number | null): number | null {
  if (sent === undefined) return current;
  return sent === null ? null : truncateToHundredths(sent) / 100;
}

/** `400 invalid parameter: <field>` for a field this route does not know (a misspelt minimum). */
function refuseUnknownField(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const unknown = Object.keys(body).find((key) => !(key in settingsBody.shape));
  if (unknown !== undefined) throw new ApiError(400, `invalid parameter: ${unknown}`);
}

function auditPercent(value: number | null): string {
  return value === null ? 'none' : String(value);
}
