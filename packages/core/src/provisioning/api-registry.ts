import type { CovgateApi } from '../http/api-types.js';
import type { ApiServices } from '../http/services.js';

/** The services of each API `createApi` made, for provisioning from code; never on the API object. */
const servicesByApi = new WeakMap<object, ApiServices>();

/** Called by `createApi` once per API. */
export function registerApiServices(api: CovgateApi, services: ApiServices): void {
  servicesByApi.set(api, services);
}

/** The services of an API `createApi` made, or `undefined` for anything else. */
export function apiServicesOf(target: object): ApiServices | undefined {
  return servicesByApi.get(target);
}
