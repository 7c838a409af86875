import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST, isServerBuilt } from '@covgate/test-support/built-server';
import { run } from '@covgate/test-support/processes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CiRecipe, recipeOf, shellRecipe, type ToolId } from '../app/src/ci-recipes.js';
import { type SuiteServer, startSuiteServer } from './support/browser.js';

// The wizard's shell commands, each run as the wizard shows it (`sh -e -c <its text>`) in a
// scratch project made here (a tiny `sign` module and its tests, a git checkout on `main`),
// with the coverage tool the recipe names, the CLI fetched from the built server's
// `/cli/covgate.tgz` by the command itself, against that running server. Only npm's registry
// is out of reach while the command runs. Maven and Gradle cannot run here (their JaCoCo
// plugin is not in the local repository and Maven Central is not reachable), so those two
// recipes run with a stand-in `mvn` / `gradlew` that checks its arguments and writes a real
// JaCoCo report (packages/cli/test/fixtures/jacoco), where Maven's and Gradle's JaCoCo write it.

const cliTarball = join(DIST, 'cli', 'covgate.tgz');
const built = isServerBuilt() && existsSync(cliTarball);
if (!built) {
  console.warn('[covgate] wizard recipes test SKIPPED: run `pnpm build` first (`pnpm test` does)');
}

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const jacocoFixture = join(repoRoot, 'packages/cli/test/fixtures/jacoco');
// The workspace's copies of the JavaScript tools: the CLI package's own dev dependencies.
const workspaceTools = createRequire(join(repoRoot, 'packages/cli/package.json'));

/** The real folder of an installed package of the workspace. */
function workspacePackage(name: string): string {
  return realpathSync(dirname(workspaceTools.resolve(`${name}/package.json`)));
}

/** A Python 3 that has both coverage.py and pytest (Debian's `python3-coverage` and `python3-pytest`). */
function pythonWithCoverageAndPytest(): string | null {
  for (const candidate of ['python3', '/usr/bin/python3']) {
    try {
      execFileSync(candidate, ['-c', 'import coverage, pytest'], { stdio: 'ignore' });
      return execFileSync(candidate, ['-c', 'import sys; print(sys.executable)'], {
        encoding: 'utf8',
      }).trim();
    } catch {}
  }
  return null;
}

const JS_SOURCE = `export function sign(n) {
  if (n > 0) return 1;
  if (n < 0) return -1;
  return 0;
}
`;

/** The tests of each tool calling `sign` with `inputs`: fewer inputs, fewer lines covered. */
const TESTS: Record<'node' | 'vitest' | 'jest' | 'python' | 'go', (inputs: number[]) => string> = {
  node: (inputs) => `import assert from 'node:assert';
import { test } from 'node:test';
import { sign } from './sign.js';
test('sign', () => {
${inputs.map((n) => `  assert.equal(sign(${n}), Math.sign(${n}));`).join('\n')}
});
`,
  vitest: (inputs) => `import { expect, test } from 'vitest';
import { sign } from './sign.js';
test('sign', () => {
${inputs.map((n) => `  expect(sign(${n})).toBe(Math.sign(${n}));`).join('\n')}
});
`,
  jest: (inputs) => `const { sign } = require('./sign.js');
test('sign', () => {
${inputs.map((n) => `  expect(sign(${n})).toBe(Math.sign(${n}));`).join('\n')}
});
`,
  python: (inputs) => `from sign import sign


def test_sign():
${inputs.map((n) => `    assert sign(${n}) == ${Math.sign(n)}`).join('\n')}
`,
  go: (inputs) => `package sign

import "testing"

func TestSign(t *testing.T) {
${inputs.map((n) => `\tif Sign(${n}) != ${Math.sign(n)} {\n\t\tt.Fatal(${n})\n\t}`).join('\n')}
}
`,
};

/** The files of a scratch project of `tool` whose tests call `sign` with `inputs`. */
function projectFiles(tool: ToolId, inputs: number[]): Record<string, string> {
  switch (tool) {
    case 'c8':
      return {
        'package.json': '{ "type": "module", "devDependencies": { "c8": "^10.1.3" } }\n',
        'sign.js': JS_SOURCE,
        'sign.test.js': TESTS.node(inputs),
      };
    case 'vitest':
      return {
        'package.json':
          '{ "type": "module", "devDependencies": { "vitest": "^4.1.12", "@vitest/coverage-v8": "^4.1.12" } }\n',
        'sign.js': JS_SOURCE,
        'sign.test.js': TESTS.vitest(inputs),
      };
    case 'jest':
      return {
        'package.json': '{ "devDependencies": {} }\n',
        'sign.js': JS_SOURCE.replace('export function', 'function').concat(
          'module.exports = { sign };\n',
        ),
        'sign.test.js': TESTS.jest(inputs),
      };
    case 'coverage-py':
      return {
        'sign.py':
          'def sign(n):\n    if n > 0:\n        return 1\n    if n < 0:\n        return -1\n    return 0\n',
        'test_sign.py': TESTS.python(inputs),
      };
    case 'go':
      return {
        'go.mod': 'module example.com/sign\n\ngo 1.19\n',
        'sign.go':
          'package sign\n\nfunc Sign(n int) int {\n\tif n > 0 {\n\t\treturn 1\n\t}\n\tif n < 0 {\n\t\treturn -1\n\t}\n\treturn 0\n}\n',
        'sign_test.go': TESTS.go(inputs),
      };
    default:
      throw new Error(`no scratch project for ${tool}`);
  }
}

describe.skipIf(!built && process.env.CI !== '1')(
  'the wizard’s shell commands, run for real',
  () => {
    let work: string;
    let server: SuiteServer;
    let token: string;
    /** Where the stand-ins and the chosen `python3` are, first on the job's PATH. */
    let bin: string;
    let python: string | null;

    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), 'covgate-wizard-recipes-'));
      server = await startSuiteServer('recipes');
      const admin = await run(process.execPath, [join(DIST, 'admin.js'), 'bootstrap', 'acme'], {
        env: { PATH: process.env.PATH, COVGATE_DATA_DIR: server.dataDir },
      });
      const session = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin.stdout)?.[1];
      expect(session, admin.stdout + admin.stderr).toBeDefined();
      const created = await fetch(`${server.origin}/v1/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ci' }),
      });
      expect(created.status).toBe(201);
      token = ((await created.json()) as { secret: string }).secret;
      bin = join(work, 'bin');
      await mkdir(bin);
      await mkdir(join(work, 'home'));
      python = pythonWithCoverageAndPytest();
      if (python !== null) await symlink(python, join(bin, 'python3'));
    });

    afterAll(async () => {
      await server?.close();
      if (work) await rm(work, { recursive: true, force: true });
    });

    /** The environment of a CI job that reaches the covgate server and no package registry. */
    function jobEnv(): NodeJS.ProcessEnv {
      return {
        PATH: `${bin}:${process.env.PATH}`,
        HOME: join(work, 'home'),
        // Port 9 (discard): a registry nothing answers at; no retries, so a request fails fast.
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_cache: join(work, 'npm-cache'),
        npm_config_fetch_retries: '0',
        npm_config_update_notifier: 'false',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        GOCACHE: join(work, 'go-cache'),
        GOPATH: join(work, 'go-path'),
        GOPROXY: 'off',
        GOTOOLCHAIN: 'local',
      };
    }

    async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
      for (const [name, text] of Object.entries(files)) {
        await mkdir(dirname(join(dir, name)), { recursive: true });
        await writeFile(join(dir, name), text);
      }
    }

    async function git(dir: string, ...args: string[]): Promise<void> {
      const done = await run(
        'git',
        ['-c', 'user.name=covgate', '-c', 'user.email=covgate@example.com', ...args],
        { cwd: dir, env: { PATH: process.env.PATH, HOME: join(work, 'home') } },
      );
      expect(done.code, done.stderr).toBe(0);
    }

    /** A git checkout on `main` holding `files`, committed (`node_modules` and reports ignored). */
    async function checkout(name: string, files: Record<string, string>): Promise<string> {
      const dir = join(work, name);
      await mkdir(dir);
      await writeFiles(dir, {
        '.gitignore':
          'node_modules/\ncoverage/\ncoverage.xml\n.coverage\ncoverage.out\ntarget/\nbuild/\n',
        ...files,
      });
      await git(dir, 'init', '-q', '-b', 'main');
      await git(dir, 'add', '-A');
      await git(dir, 'commit', '-q', '-m', 'sign');
      return dir;
    }

    /** Links a workspace package into the project, its bins in `node_modules/.bin` as npm does. */
    async function linkPackage(dir: string, name: string, bins: Record<string, string> = {}) {
      const target = join(dir, 'node_modules', name);
      await mkdir(dirname(target), { recursive: true });
      await symlink(workspacePackage(name), target);
      await mkdir(join(dir, 'node_modules', '.bin'), { recursive: true });
      for (const [bin, file] of Object.entries(bins)) {
        await symlink(join(target, file), join(dir, 'node_modules', '.bin', bin));
      }
    }

    /** Runs the wizard's shell command of `recipe` for repository `repo` in `dir`. */
    function runRecipe(recipe: CiRecipe, dir: string, repo: string) {
      const text = shellRecipe(recipe, { apiUrl: server.origin, repo, secret: token });
      return run('sh', ['-e', '-c', text], { cwd: dir, env: jobEnv(), timeoutMs: 180_000 });
    }

    function recipe(id: ToolId): CiRecipe {
      const found = recipeOf(id);
      if (!found) throw new Error(`no recipe ${id}`);
      return found;
    }

    /** The runs of `repo` the server stored, newest first, as [branch, outcome, coverage]. */
    async function storedRuns(repo: string): Promise<[string, string, number][]> {
      const listed = await fetch(`${server.origin}/v1/executions?org=acme&repo=${repo}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const { executions } = (await listed.json()) as {
        executions: { branch: string; outcome: string; coverage: number }[];
      };
      return executions.map(({ branch, outcome, coverage }) => [branch, outcome, coverage]);
    }

    /** The verdict, covgate's last line on stdout (the test command's own output comes first). */
    const verdictLine = (stdout: string) => `${stdout.trimEnd().split('\n').at(-1)}\n`;

    const firstRun = (repo: string) =>
      `${repo}@main: coverage 100.00%, no baseline on main yet: nothing to compare, recorded as the first run\n`;

    it('c8 with node --test: the first run on main passes (exit 0), a branch that tests less fails (exit 1)', async () => {
      const dir = await checkout('c8', projectFiles('c8', [2, -2, 0]));
      await linkPackage(dir, 'c8', { c8: 'bin/c8.js' });
      const passed = await runRecipe(recipe('c8'), dir, 'c8-app');
      expect(passed.stderr).toContain('covgate: found coverage/lcov.info (lcov)\n');
      expect(passed.stderr).toContain(
        'covgate: coverage/lcov.info (lcov): 5 of 5 lines in 1 file, 100.00%',
      );
      expect(verdictLine(passed.stdout)).toBe(firstRun('c8-app'));
      expect(passed.code).toBe(0);

      await git(dir, 'checkout', '-q', '-b', 'feature');
      await writeFiles(dir, { 'sign.test.js': TESTS.node([2]) });
      await git(dir, 'commit', '-q', '-am', 'fewer tests');
      const failed = await runRecipe(recipe('c8'), dir, 'c8-app');
      expect(failed.stderr).toContain(
        'covgate: coverage/lcov.info (lcov): 3 of 5 lines in 1 file, 60.00%',
      );
      expect(verdictLine(failed.stdout)).toBe(
        'fail c8-app@feature: coverage 60.00%, baseline 100.00% on main, delta -40.00\n',
      );
      expect(failed.code).toBe(1);
      expect(await storedRuns('c8-app')).toEqual([
        ['feature', 'fail', 60],
        ['main', 'pass', 100],
      ]);

      // A new file no test loads: without c8's --all it is in no report and the branch passes.
      await git(dir, 'checkout', '-q', 'main');
      await git(dir, 'checkout', '-q', '-b', 'untested-file');
      await writeFiles(dir, {
        'round.js': 'export function round(value) {\n  return Math.round(value);\n}\n',
      });
      await git(dir, 'add', 'round.js');
      await git(dir, 'commit', '-q', '-m', 'an untested file');
      const untested = await runRecipe(recipe('c8'), dir, 'c8-app');
      expect(untested.stderr).toContain(
        'covgate: coverage/lcov.info (lcov): 5 of 8 lines in 2 files, 62.50%',
      );
      expect(untested.code).toBe(1);
    }, 240_000);

    it('Vitest with the V8 provider: the first run on main passes, exit 0', async () => {
      const dir = await checkout('vitest', projectFiles('vitest', [2, -2, 0]));
      await linkPackage(dir, 'vitest', { vitest: 'vitest.mjs' });
      await linkPackage(dir, '@vitest/coverage-v8');
      const passed = await runRecipe(recipe('vitest'), dir, 'vitest-app');
      expect(passed.stderr).toContain('covgate: found coverage/lcov.info (lcov)\n');
      expect(verdictLine(passed.stdout)).toBe(firstRun('vitest-app'));
      expect(passed.code).toBe(0);
    }, 240_000);

    it('Jest 30: the first run on main passes, exit 0', async () => {
      const dir = await checkout('jest', projectFiles('jest', [2, -2, 0]));
      // The project's own dev dependency, as its `npm ci` installs it in CI: the workspace's Jest
      // (installed with the lockfile), so the test needs no registry while it runs.
      await linkPackage(dir, 'jest', { jest: 'bin/jest.js' });
      const passed = await runRecipe(recipe('jest'), dir, 'jest-app');
      expect(passed.stderr).toContain('covgate: found coverage/lcov.info (lcov)\n');
      expect(verdictLine(passed.stdout)).toBe(firstRun('jest-app'));
      expect(passed.code).toBe(0);
    }, 240_000);

    it('coverage.py with pytest: the first run on main passes (exit 0), a branch that tests less fails (exit 1)', async (context) => {
      // CI installs both (.ci/run): there a missing one fails the test instead of skipping it.
      if (python === null && process.env.CI !== '1') {
        console.warn(
          '[covgate] coverage.py recipe SKIPPED: no python3 with coverage and pytest (apt-get install python3-coverage python3-pytest)',
        );
        context.skip();
      }
      if (python === null) throw new Error('CI=1: no python3 with coverage and pytest');
      const dir = await checkout('python', projectFiles('coverage-py', [2, -2, 0]));
      const passed = await runRecipe(recipe('coverage-py'), dir, 'py-app');
      expect(passed.stderr).toContain('covgate: found coverage.xml (cobertura)\n');
      expect(verdictLine(passed.stdout)).toBe(firstRun('py-app'));
      expect(passed.code).toBe(0);

      await git(dir, 'checkout', '-q', '-b', 'feature');
      await writeFiles(dir, { 'test_sign.py': TESTS.python([2]) });
      await git(dir, 'commit', '-q', '-am', 'fewer tests');
      const failed = await runRecipe(recipe('coverage-py'), dir, 'py-app');
      // sign.py: 3 of 6 lines; test_sign.py, measured too (--source=.): 3 of 3.
      expect(failed.stderr).toContain(
        'covgate: coverage.xml (cobertura): 6 of 9 lines in 2 files, 66.66%',
      );
      expect(verdictLine(failed.stdout)).toBe(
        'fail py-app@feature: coverage 66.66%, baseline 100.00% on main, delta -33.34\n',
      );
      expect(failed.code).toBe(1);
      expect(await storedRuns('py-app')).toEqual([
        ['feature', 'fail', 66.66],
        ['main', 'pass', 100],
      ]);
    }, 240_000);

    it('go test -coverprofile: the first run on main passes (exit 0), a branch that tests less fails (exit 1)', async () => {
      const dir = await checkout('go', projectFiles('go', [2, -2, 0]));
      const passed = await runRecipe(recipe('go'), dir, 'go-app');
      expect(passed.stderr).toContain('covgate: found coverage.out (go)\n');
      expect(verdictLine(passed.stdout)).toBe(firstRun('go-app'));
      expect(passed.code).toBe(0);

      await git(dir, 'checkout', '-q', '-b', 'feature');
      await writeFiles(dir, { 'sign_test.go': TESTS.go([2]) });
      await git(dir, 'commit', '-q', '-am', 'fewer tests');
      const failed = await runRecipe(recipe('go'), dir, 'go-app');
      expect(failed.stderr).toContain(
        'covgate: coverage.out (go): 2 of 5 statements in 1 file, 40.00%',
      );
      expect(verdictLine(failed.stdout)).toBe(
        'fail go-app@feature: coverage 40.00%, baseline 100.00% on main, delta -60.00\n',
      );
      expect(failed.code).toBe(1);
      expect(await storedRuns('go-app')).toEqual([
        ['feature', 'fail', 40],
        ['main', 'pass', 100],
      ]);
    }, 240_000);

    /**
     * A stand-in for Maven or Gradle: exits 64 unless called with exactly `args`, else writes the
     * real JaCoCo report of the fixture's sources to `report`, as the JaCoCo plugin would.
     */
    async function buildToolStandIn(path: string, args: string, report: string): Promise<void> {
      await writeFile(
        path,
        `#!/bin/sh
[ "$*" = ${JSON.stringify(args)} ] || { echo "unexpected arguments: $*" >&2; exit 64; }
mkdir -p ${dirname(report)}
cp ${JSON.stringify(join(jacocoFixture, 'jacoco.xml'))} ${report}
`,
      );
      await chmod(path, 0o755);
    }

    /** A Java checkout with the fixture's sources in Maven's and Gradle's layout. */
    async function javaCheckout(name: string): Promise<string> {
      const main = 'src/main/java/example/shapes';
      const dir = join(work, name);
      await mkdir(join(dir, main), { recursive: true });
      for (const file of ['Shapes.java', 'ShapesMain.java']) {
        await copyFile(join(jacocoFixture, 'src/example/shapes', file), join(dir, main, file));
      }
      await writeFiles(dir, { '.gitignore': 'target/\nbuild/\n' });
      await git(dir, 'init', '-q', '-b', 'main');
      await git(dir, 'add', '-A');
      await git(dir, 'commit', '-q', '-m', 'shapes');
      return dir;
    }

    const jacocoFirstRun = (repo: string) =>
      `${repo}@main: coverage 57.14%, no baseline on main yet: nothing to compare, recorded as the first run\n`;

    it('JaCoCo with Maven (a stand-in mvn writing a real JaCoCo report): the run is gated, exit 0', async () => {
      const maven = recipe('jacoco-maven');
      await buildToolStandIn(
        join(bin, 'mvn'),
        maven.test.replace(/^mvn /, ''),
        'target/site/jacoco/jacoco.xml',
      );
      const dir = await javaCheckout('maven');
      const passed = await runRecipe(maven, dir, 'maven-app');
      expect(passed.stderr).toContain('covgate: found target/site/jacoco/jacoco.xml (jacoco)\n');
      expect(passed.stderr).toContain(
        'covgate: target/site/jacoco/jacoco.xml (jacoco): 8 of 14 lines in 1 file, 57.14%',
      );
      expect(verdictLine(passed.stdout)).toBe(jacocoFirstRun('maven-app'));
      expect(passed.code).toBe(0);
    });

    it('JaCoCo with Gradle (a stand-in gradlew writing a real JaCoCo report): the run is gated, exit 0', async () => {
      const gradle = recipe('jacoco-gradle');
      const dir = await javaCheckout('gradle');
      await buildToolStandIn(
        join(dir, 'gradlew'),
        gradle.test.replace(/^\.\/gradlew /, ''),
        'build/reports/jacoco/test/jacocoTestReport.xml',
      );
      const passed = await runRecipe(gradle, dir, 'gradle-app');
      expect(passed.stderr).toContain(
        'covgate: found build/reports/jacoco/test/jacocoTestReport.xml (jacoco)\n',
      );
      expect(verdictLine(passed.stdout)).toBe(jacocoFirstRun('gradle-app'));
      expect(passed.code).toBe(0);
    });
  },
);
