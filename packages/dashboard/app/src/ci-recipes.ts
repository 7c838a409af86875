import { shellQuote } from './format.js';

/** The coverage tools the onboarding wizard has a recipe for. */
export type ToolId =
  | 'c8'
  | 'vitest'
  | 'jest'
  | 'coverage-py'
  | 'go'
  | 'jacoco-maven'
  | 'jacoco-gradle';

/** A step of a GitHub Actions job: an action with its inputs, or a command. */
export type ActionsStep =
  | { uses: string; with?: Record<string, string | number> }
  | { run: string };

/**
 * How one coverage tool produces a report covgate reads, in a shell, GitHub Actions and GitLab
 * CI: data only, rendered by {@link shellRecipe}, {@link githubActionsWorkflow} and
 * {@link gitlabCiJob}.
 */
export interface CiRecipe {
  id: ToolId;
  /** The language, the heading the wizard groups tools under. */
  language: string;
  /** The tool as the picker names it. */
  label: string;
  /** What to do once in the project so that `test` works (a dev dependency, a build plugin); `says` follows "Once, ". */
  once: { says: string; code: string } | null;
  /** The command that runs the tests and writes the report (after `covgate run --`). */
  test: string;
  /** The report `test` writes, which covgate finds by its name. */
  report: string;
  /** GitHub Actions steps after the checkout: the toolchain, Node.js 20 for covgate, dependencies. */
  actionsSetup: ActionsStep[];
  /** GitLab CI: the job's image and what its `before_script` installs. */
  gitlab: { image: string; beforeScript: string[] };
}

const SETUP_NODE: ActionsStep = { uses: 'actions/setup-node@v4', with: { 'node-version': 20 } };

/**
 * covgate runs on Node.js 20; images of other languages lack it (Debian's own is 18), so the
 * GitLab job of those installs it from NodeSource, which serves Debian and Ubuntu alike (curl
 * first: slim and JDK images may not have it).
 */
const NODE_ON_DEBIAN =
  'apt-get update && apt-get install -y curl && curl -fsSL https://deb.nodesource.com/setup_20.x | bash - && apt-get install -y nodejs';

const JACOCO = 'org.jacoco:jacoco-maven-plugin:0.8.12';

/** Every recipe, in the order the wizard lists them. */
export const CI_RECIPES: readonly CiRecipe[] = [
  {
    id: 'c8',
    language: 'JavaScript / TypeScript',
    label: 'node --test with c8',
    once: { says: 'add c8 to the project', code: 'npm install --save-dev c8' },
    test: 'npx c8 --all --reporter=lcov node --test',
    report: 'coverage/lcov.info',
    actionsSetup: [SETUP_NODE, { run: 'npm ci' }],
    gitlab: { image: 'node:20', beforeScript: ['npm ci'] },
  },
  {
    id: 'vitest',
    language: 'JavaScript / TypeScript',
    label: 'Vitest',
    once: {
      says: "add Vitest's V8 coverage provider to the project",
      code: 'npm install --save-dev @vitest/coverage-v8',
    },
    test: 'npx vitest run --coverage --coverage.provider=v8 --coverage.reporter=lcov',
    report: 'coverage/lcov.info',
    actionsSetup: [SETUP_NODE, { run: 'npm ci' }],
    gitlab: { image: 'node:20', beforeScript: ['npm ci'] },
  },
  {
    id: 'jest',
    language: 'JavaScript / TypeScript',
    label: 'Jest',
    once: null,
    test: 'npx jest --coverage',
    report: 'coverage/lcov.info',
    actionsSetup: [SETUP_NODE, { run: 'npm ci' }],
    gitlab: { image: 'node:20', beforeScript: ['npm ci'] },
  },
  {
    id: 'coverage-py',
    language: 'Python',
    label: 'coverage.py with pytest',
    once: {
      says: 'install coverage.py and pytest (or add them to your requirements)',
      code: 'python3 -m pip install coverage pytest',
    },
    test: "sh -c 'python3 -m coverage run --source=. -m pytest && python3 -m coverage xml'",
    report: 'coverage.xml',
    actionsSetup: [
      { uses: 'actions/setup-python@v5', with: { 'python-version': '3.12' } },
      SETUP_NODE,
      { run: 'python3 -m pip install coverage pytest' },
    ],
    gitlab: {
      image: 'python:3.12',
      beforeScript: [NODE_ON_DEBIAN, 'python3 -m pip install coverage pytest'],
    },
  },
  {
    id: 'go',
    language: 'Go',
    label: 'go test',
    once: null,
    test: 'go test -coverprofile=coverage.out ./...',
    report: 'coverage.out',
    actionsSetup: [{ uses: 'actions/setup-go@v5', with: { 'go-version': 'stable' } }, SETUP_NODE],
    gitlab: { image: 'golang:1.23', beforeScript: [NODE_ON_DEBIAN] },
  },
  {
    id: 'jacoco-maven',
    language: 'Java / Kotlin',
    label: 'JaCoCo with Maven',
    once: null,
    test: `mvn -B ${JACOCO}:prepare-agent test ${JACOCO}:report`,
    report: 'target/site/jacoco/jacoco.xml',
    actionsSetup: [
      { uses: 'actions/setup-java@v4', with: { distribution: 'temurin', 'java-version': 21 } },
      SETUP_NODE,
    ],
    gitlab: { image: 'maven:3.9-eclipse-temurin-21', beforeScript: [NODE_ON_DEBIAN] },
  },
  {
    id: 'jacoco-gradle',
    language: 'Java / Kotlin',
    label: 'JaCoCo with Gradle',
    once: {
      says: 'apply the JaCoCo plugin and turn on its XML report in build.gradle.kts',
      code: [
        'plugins {',
        '    jacoco',
        '}',
        'tasks.jacocoTestReport {',
        '    reports { xml.required.set(true) }',
        '}',
      ].join('\n'),
    },
    test: './gradlew test jacocoTestReport',
    report: 'build/reports/jacoco/test/jacocoTestReport.xml',
    actionsSetup: [
      { uses: 'actions/setup-java@v4', with: { distribution: 'temurin', 'java-version': 21 } },
      SETUP_NODE,
    ],
    gitlab: { image: 'eclipse-temurin:21', beforeScript: [NODE_ON_DEBIAN] },
  },
];

/** The recipe of `id`, or undefined for an id no recipe has. */
export function recipeOf(id: string): CiRecipe | undefined {
  return CI_RECIPES.find((recipe) => recipe.id === id);
}

/**
 * The one line every form runs: the server's CLI, from `$COVGATE_URL`, running the tool's
 * tests, reading the report they wrote and gating the run of `repo`.
 */
export function gateCommand(recipe: CiRecipe, repo: string): string {
  return `npx --yes "$COVGATE_URL/cli/covgate.tgz" run --repo ${shellQuote(repo)} -- ${recipe.test}`;
}

/** The commands to gate a local run of the tests with the new token. */
export function shellRecipe(
  recipe: CiRecipe,
  options: { apiUrl: string; repo: string; secret: string },
): string {
  return [
    `export COVGATE_URL=${shellQuote(options.apiUrl.replace(/\/+$/, ''))}`,
    `export COVGATE_TOKEN=${shellQuote(options.secret)}`,
    gateCommand(recipe, options.repo),
  ].join('\n');
}

/**
 * A YAML scalar: the value as it is when YAML reads it back unchanged, else double-quoted
 * (a JSON string is a valid YAML double-quoted scalar).
 */
function yamlScalar(value: string | number): string {
  if (typeof value === 'number') return String(value);
  const plain =
    /^[A-Za-z0-9_./$][^#]*$/.test(value) &&
    !/: |:$|\s$/.test(value) &&
    !/^(true|false|yes|no|on|off|null|~|[-+]?[0-9][0-9._:eE+-]*)$/i.test(value);
  return plain ? value : JSON.stringify(value);
}

function actionsStepLines(step: ActionsStep): string[] {
  if ('run' in step) return [`      - run: ${yamlScalar(step.run)}`];
  const lines = [`      - uses: ${step.uses}`];
  if (step.with) {
    lines.push('        with:');
    for (const [key, value] of Object.entries(step.with)) {
      lines.push(`          ${key}: ${yamlScalar(value)}`);
    }
  }
  return lines;
}

/**
 * A whole workflow (`.github/workflows/coverage.yml`) gating each push to the default branch
 * and each pull request. The checkout takes the whole history (`fetch-depth: 0`): a pull
 * request's patch coverage needs its merge base, which a shallow clone lacks.
 */
export function githubActionsWorkflow(
  recipe: CiRecipe,
  options: { apiUrl: string; repo: string },
): string {
  return [
    'name: coverage',
    'on:',
    '  push:',
    '    branches: [main]',
    '  pull_request:',
    'jobs:',
    '  coverage:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    '      - uses: actions/checkout@v4',
    '        with:',
    '          fetch-depth: 0',
    ...recipe.actionsSetup.flatMap(actionsStepLines),
    '      - name: Coverage gate',
    `        run: ${yamlScalar(gateCommand(recipe, options.repo))}`,
    '        env:',
    `          COVGATE_URL: ${yamlScalar(options.apiUrl.replace(/\/+$/, ''))}`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expression syntax
    '          COVGATE_TOKEN: ${{ secrets.COVGATE_TOKEN }}',
  ].join('\n');
}

/**
 * A job of `.gitlab-ci.yml`; `GIT_DEPTH: 0` clones the whole history, as a merge request's
 * patch coverage needs its merge base. The token is a masked CI/CD variable of the project.
 */
export function gitlabCiJob(recipe: CiRecipe, options: { apiUrl: string; repo: string }): string {
  return [
    'coverage:',
    `  image: ${yamlScalar(recipe.gitlab.image)}`,
    '  variables:',
    `    COVGATE_URL: ${yamlScalar(options.apiUrl.replace(/\/+$/, ''))}`,
    '    GIT_DEPTH: 0',
    '    # COVGATE_TOKEN: a masked CI/CD variable of the project (Settings > CI/CD > Variables)',
    '  before_script:',
    ...recipe.gitlab.beforeScript.map((line) => `    - ${yamlScalar(line)}`),
    '  script:',
    `    - ${yamlScalar(gateCommand(recipe, options.repo))}`,
  ].join('\n');
}
