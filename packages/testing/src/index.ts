/**
 * `@covgate/testing`: fixture builders, test tokens, an in-process test API, fake GitHub, GitLab
 * and Gitea REST servers and the types of the suites, for testing `Store` implementations and code built on
 * covgate under any test runner (vitest, jest, `node:test`...): nothing here imports a test
 * runner. The vitest suites themselves are in `@covgate/testing/vitest`.
 */

export type { StoreConformanceOptions } from './conformance/options.js';
export { type FakeGiteaRest, startFakeGiteaRest } from './fake-gitea-rest.js';
export {
  type FakeAnswer,
  type FakeComment,
  type FakeGithubRest,
  type FakeStatus,
  startFakeGithubRest,
} from './fake-github-rest.js';
export {
  type FakeGitlabNote,
  type FakeGitlabRest,
  type FakeGitlabStatus,
  startFakeGitlabRest,
} from './fake-gitlab-rest.js';
export type { FakeRepositoryFiles } from './fake-repository-files.js';
export {
  buildExecution,
  buildIdempotencyClaim,
  buildInvite,
  buildOrganisation,
  buildSession,
  buildSignInLink,
  buildTokenRecord,
  buildUser,
  FIXTURE_TIME,
  newPrefixedId,
  randomSuffix,
  secondsAfter,
} from './fixtures.js';
export type {
  ContractContext,
  HttpContractOptions,
  StartedServer,
  StartServer,
} from './http-contract/contract-types.js';
export {
  captureLogs,
  createCheapTokenHasher,
  createTestApi,
  type LogCapture,
  TEST_API_ORIGIN,
  TEST_DASHBOARD_ORIGIN,
  TEST_REMOTE_ADDRESS,
  TEST_SERVICE_TOKEN,
  TEST_SESSION_SECRET,
  TEST_START,
  type TestApi,
  type TestApiOptions,
  type TestApiOverrides,
} from './test-api.js';
export {
  guessAt,
  type IssuedTestToken,
  type IssueTestTokenOptions,
  issueTestToken,
  wrongSecretOf,
} from './test-tokens.js';
