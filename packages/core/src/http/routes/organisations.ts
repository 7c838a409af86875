import { z } from 'zod';
import { createOrganisation } from '../../organisations/create-organisation.js';
import { OrganisationInputError } from '../../organisations/organisation-input.js';
import { type Organisation, StoreConflictError } from '../../storage/store.js';
import { formatTimestamp } from '../../time/timestamp.js';
import { ApiError } from '../api-error.js';
import { requireServiceToken } from '../auth/service-token-request.js';
import { jsonReply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RouteHandler } from '../services.js';
import { parseBody } from '../validation.js';

/** Types only: the rules of each field live in `checkOrganisationInput`, shared with code. */
const createOrganisationBody = z.object({
  slug: z.string(),
  name: z.string().optional(),
  plan: z.enum(['free', 'team', 'enterprise']).optional(),
});

/**
 * `POST /v1/organisations`: internal, behind `SERVICE_TOKEN` (constant-time). Check order:
 * `401` service token, `413`/`415`/`400` body, `400` reserved slug, `409` slug taken.
 */
export const postOrganisation: RouteHandler = async (scope) => {
  const { services } = scope;
  requireServiceToken(scope, 'organisation.create.denied');
  const input = parseBody(createOrganisationBody, await readJsonBody(scope.request));
  let organisation: Organisation;
  try {
    organisation = await createOrganisation(services.store, input, {
      clock: services.clock,
      ids: services.ids,
      audit: services.audit,
    });
  } catch (error) {
    if (error instanceof OrganisationInputError) throw new ApiError(400, error.message);
    if (error instanceof StoreConflictError) throw new ApiError(409, 'conflict');
    throw error;
  }
  return jsonReply(201, {
    id: organisation.id,
    slug: organisation.slug,
    name: organisation.name,
    plan: organisation.plan,
    created_at: formatTimestamp(organisation.createdAt),
  });
};
