/**
 * `@covgate/testing/vitest`: the storage conformance suite and the HTTP contract suite,
 * registered with vitest's `describe`/`it`/`expect`. Needs `vitest` (an optional peer
 * dependency of `@covgate/testing`); the fixtures they use are in `@covgate/testing`.
 */

export type { StoreConformanceOptions } from './conformance/options.js';
export { runStoreConformanceSuite } from './conformance/suite.js';
export type {
  ContractContext,
  HttpContractOptions,
  StartedServer,
  StartServer,
} from './http-contract/contract-types.js';
export { runHttpContractSuite } from './http-contract/suite.js';
