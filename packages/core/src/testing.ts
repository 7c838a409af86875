/**
 * `@covgate/core/testing`: the storage conformance suite, the HTTP contract suite and fixture
 * builders, for testing `Store` implementations and code built on covgate. Needs `vitest`
 * (an optional peer dependency of `@covgate/core`).
 */

export {
  runStoreConformanceSuite,
  type StoreConformanceOptions,
} from './testing/conformance/suite.js';
export {
  buildExecution,
  buildOrganisation,
  buildSession,
  buildTokenRecord,
  buildUser,
  FIXTURE_TIME,
  newPrefixedId,
  randomSuffix,
  secondsAfter,
} from './testing/fixtures.js';
export type {
  ContractContext,
  HttpContractOptions,
  StartedServer,
  StartServer,
} from './testing/http-contract/harness.js';
export { runHttpContractSuite } from './testing/http-contract/suite.js';
export {
  type IssuedTestToken,
  type IssueTestTokenOptions,
  issueTestToken,
} from './testing/test-tokens.js';
