import type { AuditLogger } from '../audit/audit-sink.js';
import type { Organisation, Store } from '../storage/store.js';
import { createIdGenerator, type IdGenerator } from '../time/ids.js';
import { type Clock, systemClock, wholeSeconds } from '../time/timestamp.js';
import { checkOrganisationInput, type OrganisationInput } from './organisation-input.js';

/** Options of {@link createOrganisation}. */
export interface CreateOrganisationOptions {
  /** Source of `createdAt`; the system clock by default. */
  clock?: Clock;
  /** Id generator; a fresh one on `clock` by default (share one per process when you can). */
  ids?: IdGenerator;
  /** Receives the `organisation.create` audit event when given. */
  audit?: AuditLogger;
}

/**
 * Creates an organisation, as `POST /v1/organisations` does: checks the input (slug pattern,
 * reserved personal prefixes, name, plan), stores it and records
 * `[audit] organisation.create org_id=<id> slug=<slug>` on `options.audit`.
 *
 * @throws OrganisationInputError - the input is refused.
 * @throws StoreConflictError - an organisation with that slug exists.
 */
export async function createOrganisation(
  store: Pick<Store, 'createOrganisation'>,
  input: OrganisationInput,
  options: CreateOrganisationOptions = {},
): Promise<Organisation> {
  const { slug, name, plan } = checkOrganisationInput(input);
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? createIdGenerator({ now: () => clock.now().getTime() });
  const organisation: Organisation = {
    id: ids.organisationId(),
    slug,
    name,
    plan,
    createdAt: wholeSeconds(clock.now()),
  };
  await store.createOrganisation(organisation);
  options.audit?.record({ type: 'organisation.create', orgId: organisation.id, slug });
  return organisation;
}
