import type { AuditLogger } from '../audit/audit-sink.js';
import type { CovgateApi } from '../http/api-types.js';
import type { ApiServices } from '../http/services.js';
import type { Organisation, Store } from '../storage/store.js';
import { createIdGenerator, type IdGenerator } from '../time/ids.js';
import { type Clock, systemClock } from '../time/timestamp.js';
import { apiServicesOf } from './api-registry.js';

/**
 * Where {@link createSession} and {@link createToken} write: an API made by `createApi` (its
 * store, secrets, session lifetime, clock and audit sink are used), or a `Store` (the secrets
 * are then given in the options and must be the server's).
 */
export type ProvisioningTarget = CovgateApi | Store;

/** Refused provisioning input: the field at fault and a message that is safe to show. */
export class ProvisioningInputError extends Error {
  constructor(
    readonly field: 'org' | 'userId' | 'role' | 'name' | 'scopes' | 'agentType',
    message: string,
  ) {
    super(message);
    this.name = 'ProvisioningInputError';
  }
}

/** What provisioning works with, whichever the target. */
export interface ProvisioningContext {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  audit: AuditLogger;
  /** The API's services when the target is an API. */
  api: ApiServices | undefined;
}

const NO_AUDIT: AuditLogger = { record: () => {} };

/**
 * The context of a target. `storeOnly` names the options that only a store target takes: an
 * API target uses its own settings, and a different value passed beside it would be ignored
 * silently, so it is refused.
 *
 * @throws TypeError - an object with `handle` that `createApi` did not make, or a store-only
 *   option given with an API.
 */
export function provisioningContext(
  target: ProvisioningTarget,
  options: { clock?: Clock | undefined; audit?: AuditLogger | undefined },
  storeOnly: Record<string, unknown>,
  caller: string,
): ProvisioningContext {
  const services = apiServicesOf(target);
  if (services) {
    const given = Object.keys(storeOnly).filter((name) => storeOnly[name] !== undefined);
    if (given.length > 0 || options.clock || options.audit) {
      const names = [
        ...given,
        ...(options.clock ? ['clock'] : []),
        ...(options.audit ? ['audit'] : []),
      ];
      throw new TypeError(
        `${caller}: ${names.join(', ')} are options of a store target; an API uses its own (pass the store instead)`,
      );
    }
    const { store, clock, ids, audit } = services;
    return { store, clock, ids, audit, api: services };
  }
  if ('handle' in target) {
    throw new TypeError(`${caller}: the API was not made by createApi; pass it or its Store`);
  }
  const clock = options.clock ?? systemClock;
  return {
    store: target,
    clock,
    ids: createIdGenerator({ now: () => clock.now().getTime() }),
    audit: options.audit ?? NO_AUDIT,
    api: undefined,
  };
}

/**
 * The organisation named by slug or by id (`org_...`; slugs have no underscore).
 *
 * @throws ProvisioningInputError - no such organisation.
 */
export async function findOrganisation(
  store: Pick<Store, 'findOrganisationById' | 'findOrganisationBySlug'>,
  org: string,
): Promise<Organisation> {
  const found = org.startsWith('org_')
    ? await store.findOrganisationById(org)
    : await store.findOrganisationBySlug(org);
  if (!found) throw new ProvisioningInputError('org', `unknown organisation: ${org}`);
  return found;
}
