import { describe, expect, it } from 'vitest';
import { isTestFile } from '../src/patch/test-files.js';

describe('a changed test file', () => {
  it.each([
    'src/a.test.ts',
    'src/a.spec.jsx',
    'lib/a-test.mjs',
    'lib/test-a.cjs',
    'test.js',
    'src/__tests__/a.js',
    'src/__mocks__/fs.js',
    'test/fixtures/report.xml',
    'packages/cli/tests/support.ts',
    'spec/models/user_spec.rb',
    'calc_test.go',
    'pkg/testdata/in.txt',
    'tests/test_calc.py',
    'app/calc_test.py',
    'app/conftest.py',
    'api/src/test/java/Helpers.java',
    'api/src/main/java/CalcIT.java',
    'CalcTests.kt',
    'Calc.Tests/Helpers.cs',
    'CalcTest.php',
    'calc_test.dart',
  ])('is told by its path: %s', (path) => {
    expect(isTestFile(path)).toBe(true);
  });

  it.each([
    'src/latest.js',
    'src/contest.py',
    'src/testing.js',
    'src/attest.go',
    'Manifest.java',
    'src/protest/a.js',
    'src/tested/a.js',
    'docs/test.md',
    'src/spec.js',
    'README.md',
  ])('is not any file whose name holds "test": %s', (path) => {
    expect(isTestFile(path)).toBe(false);
  });
});
