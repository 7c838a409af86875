// Mutation testing of the security-critical modules: `pnpm mutate` (on demand, not in CI).
// The goal is a mutation score of 90 % or more; a surviving mutant that changes behaviour
// gets a test. The HTML report is written to reports/mutation/.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner'],
  coverageAnalysis: 'perTest',
  mutate: [
    'packages/env-filter/src/**/*.ts',
    'packages/webhook-signature/src/**/*.ts',
    'packages/core/src/tokens/token-format.ts',
    'packages/core/src/tokens/token-hash.ts',
    'packages/core/src/tokens/token-status.ts',
    'packages/core/src/tokens/verification-throttle.ts',
    'packages/core/src/tokens/verified-token-cache.ts',
    'packages/core/src/tokens/verification-pace.ts',
    'packages/core/src/time/precise-sleep.ts',
    'packages/core/src/identity/token-scopes.ts',
    'packages/core/src/identity/identity.ts',
    'packages/core/src/sessions/*.ts',
    'packages/core/src/oauth/login-state.ts',
    'packages/core/src/http/cors.ts',
    'packages/core/src/http/client-address.ts',
    'packages/core/src/http/auth/csrf.ts',
    'packages/core/src/identity/service-token.ts',
    // Request bodies: gzip inflated within a per-request limit and a shared memory budget.
    'packages/core/src/http/inflation-budget.ts',
    'packages/core/src/http/inflate-gzip.ts',
    // Which addresses code-host requests may reach, checked when linked and at connection.
    'packages/core/src/code-hosts/*.ts',
    // Keyless CI: which ID tokens are accepted, whose keys, and which identities are trusted.
    'packages/core/src/ci-identity/*.ts',
    'packages/core/src/http/auth/ci-token-login.ts',
    // The gate's verdict: truncation, delta and outcome (a wrong verdict passes a bad run).
    'packages/core/src/gate/*.ts',
    '!**/index.ts',
  ],
  thresholds: { high: 95, low: 90, break: 90 },
  reporters: ['clear-text', 'progress', 'html'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  concurrency: 2,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
