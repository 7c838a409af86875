/**
 * `@covgate/core/testing/vitest`: the storage conformance suite and the HTTP contract suite,
 * registered with vitest's `describe`/`it`/`expect`. Needs `vitest` (an optional peer
 * dependency of `@covgate/core`); the fixtures they use are in `@covgate/core/testing`.
 */

export type { StoreConformanceOptions } from './testing/conformance/options.js';
export { runStoreConformanceSuite } from './testing/conformance/suite.js';
export type {
  ContractContext,
  HttpContractOptions,
  StartedServer,
  StartServer,
} from './testing/http-contract/contract-types.js';
export { runHttpContractSuite } from './testing/http-contract/suite.js';
