import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The unit tests of the security-critical modules `pnpm mutate` mutates (stryker.config.mjs):
// no database, no browser, no built package, so each mutant runs in seconds (the HTTP
// contract suite on Express, in about three).
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // These tests start no process; a mutant's run has no left-over check to pay for.
    globalSetup: [],
    include: [
      'packages/env-filter/test/*.test.ts',
      'packages/webhook-signature/test/*.test.ts',
      'packages/core/test/tokens/token-format.test.ts',
      'packages/core/test/tokens/token-hash.test.ts',
      'packages/core/test/tokens/token-status.test.ts',
      'packages/core/test/tokens/verification-throttle.test.ts',
      'packages/core/test/tokens/verified-token-cache.test.ts',
      'packages/core/test/tokens/verification-pace.test.ts',
      'packages/core/test/time/precise-sleep.test.ts',
      'packages/core/test/identity/*.test.ts',
      'packages/core/test/http/auth/*.test.ts',
      'packages/core/test/sessions/*.test.ts',
      'packages/core/test/oauth/login-state.test.ts',
      'packages/core/test/http/origin-and-proxy-config.test.ts',
      'packages/core/test/http/secret-rotation.test.ts',
      'packages/core/test/cookie-sessions/*.test.ts',
      'packages/core/test/gate/*.test.ts',
      'packages/core/test/http/inflation-budget.test.ts',
      'packages/core/test/http/inflate-gzip.test.ts',
      'packages/core/test/http/gzip-inflation.test.ts',
      'packages/core/test/code-hosts/*.test.ts',
      'packages/core/test/http/repository-link-addresses.test.ts',
      'packages/core/test/outbox/code-host-addresses.test.ts',
      'packages/core/test/ci-identity/*.test.ts',
      // The HTTP contract over a real socket: CORS, CSRF, client addresses, the service token.
      'packages/express/test/contract.test.ts',
    ],
  },
});
