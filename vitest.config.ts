import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SlowestFirstSequencer } from './test/support/slowest-first-sequencer.js';

const packagesDir = fileURLToPath(new URL('./packages/', import.meta.url));
const examplesDir = fileURLToPath(new URL('./examples/', import.meta.url));
const testSupportDir = fileURLToPath(new URL('./test/support/', import.meta.url));

// Test files run side by side, one per worker; each worker has its own MariaDB database and Redis
// index (test/support/worker-services.ts). COVGATE_TEST_WORKERS=1 runs them one at a time.
const workers = Number.parseInt(process.env.COVGATE_TEST_WORKERS ?? '', 10) || 2;
process.env.COVGATE_TEST_WORKERS = String(workers);

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of the workspace packages, not their builds.
    alias: [
      {
        find: /^@covgate\/testing\/vitest$/,
        replacement: `${packagesDir}testing/src/vitest.ts`,
      },
      { find: /^@covgate\/core\/github$/, replacement: `${packagesDir}core/src/github.ts` },
      { find: /^@covgate\/core\/gitea$/, replacement: `${packagesDir}core/src/gitea.ts` },
      { find: /^@covgate\/core\/gitlab$/, replacement: `${packagesDir}core/src/gitlab.ts` },
      { find: /^@covgate\/core\/percent$/, replacement: `${packagesDir}core/src/percent.ts` },
      { find: /^@covgate\/core\/verdict$/, replacement: `${packagesDir}core/src/verdict.ts` },
      { find: /^@covgate\/core\/line-data$/, replacement: `${packagesDir}core/src/line-data.ts` },
      { find: /^@covgate\/core\/internal$/, replacement: `${packagesDir}core/src/internal.ts` },
      {
        find: /^@covgate\/core\/storage-kit$/,
        replacement: `${packagesDir}core/src/storage-kit.ts`,
      },
      {
        find: /^@covgate\/mysql\/connection-url$/,
        replacement: `${packagesDir}mysql/src/connection-url.ts`,
      },
      {
        find: /^@covgate\/sql-kit\/indexes$/,
        replacement: `${packagesDir}sql-kit/src/indexes.ts`,
      },
      { find: /^@covgate\/example-shared$/, replacement: `${examplesDir}shared/src/index.ts` },
      { find: /^@covgate\/test-support\/(.+)$/, replacement: `${testSupportDir}$1.ts` },
      { find: /^@covgate\/([a-z-]+)$/, replacement: `${packagesDir}$1/src/index.ts` },
    ],
  },
  test: {
    // Marks the run; at its end, fails it naming any process a test left running (and kills it).
    globalSetup: ['test/support/global-setup.ts', 'test/support/worker-databases.ts'],
    setupFiles: ['test/support/worker-setup.ts'],
    maxWorkers: workers,
    // The slowest files start first, so that none starts late and sets the wall time alone.
    sequence: { sequencer: SlowestFirstSequencer },
    include: [
      'packages/*/test/**/*.test.ts',
      'examples/*/test/**/*.test.ts',
      'docs/test/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    // Integration tests start built servers and CLIs: on a loaded 2-core CI machine under Node
    // 22 and 24 (module loading about twice as slow as Node 20's) one start-up alone can take
    // 10 to 25 s. A hung test still fails, a minute later.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // An `expect.poll` without a timeout waits for a page or a process that a loaded CI
    // machine can keep busy for more than vitest's default second; a passing poll ends as
    // soon as its condition holds, so only a failure waits longer.
    expect: { poll: { timeout: 5_000 } },
  },
});
