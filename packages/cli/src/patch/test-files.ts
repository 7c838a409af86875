/**
 * What makes a changed file a test file, by the usual patterns of each ecosystem's test
 * runners (docs/cli.md, "Patch coverage"). A pattern is matched against the
 * repository-relative path, `/`-separated.
 */
export const TEST_FILE_PATTERNS: readonly { ecosystem: string; pattern: RegExp }[] = [
  // A folder of tests: Maven and Gradle's src/test, pytest's and Rust's tests, RSpec's spec,
  // Jest's __tests__ and __mocks__, Go's testdata, a .NET test project (Calc.Tests).
  {
    ecosystem: 'any',
    pattern: /(^|\/)(tests?|spec|__tests__|__mocks__|testdata|[^/]+\.Tests?)\//,
  },
  // Jest, Vitest, Mocha, Jasmine: a.test.ts, a.spec.jsx; node --test: a-test.js, test-a.mjs.
  {
    ecosystem: 'JavaScript, TypeScript',
    pattern: /(\.(test|spec)|[-_]test|(^|\/)test([-_][^/]*)?)\.[cm]?[jt]sx?$/,
  },
  { ecosystem: 'Go', pattern: /_test\.go$/ },
  { ecosystem: 'Python', pattern: /(^|\/)(test_[^/]*|[^/]+_test|conftest)\.py$/ },
  {
    ecosystem: 'Java, Kotlin, Scala, Groovy',
    pattern: /(Test|Tests|IT|Spec)\.(java|kts?|scala|groovy)$/,
  },
  { ecosystem: 'C#, Swift, PHP', pattern: /Tests?\.(cs|swift|php)$/ },
  { ecosystem: 'Ruby, Dart', pattern: /_(spec|test)\.(rb|dart)$/ },
];

/** Whether a changed file is a test file by {@link TEST_FILE_PATTERNS}. */
export function isTestFile(path: string): boolean {
  return TEST_FILE_PATTERNS.some(({ pattern }) => pattern.test(path));
}
