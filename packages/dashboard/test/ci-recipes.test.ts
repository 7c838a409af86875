import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  CI_RECIPES,
  gateCommand,
  githubActionsWorkflow,
  gitlabCiJob,
  recipeOf,
  shellRecipe,
} from '../app/src/ci-recipes.js';

// The wizard's commands as the three places run them: what the shell form says, each CI form
// says too, and the CI forms are YAML their runners read (parsed back here, not string-matched).

const API = 'https://cov.example.com';

interface Workflow {
  on: { push: { branches: string[] }; pull_request: null };
  jobs: {
    coverage: {
      'runs-on': string;
      steps: { uses?: string; with?: Record<string, unknown>; run?: string; env?: object }[];
    };
  };
}

interface GitlabJob {
  coverage: {
    image: string;
    variables: Record<string, unknown>;
    before_script: string[];
    script: string[];
  };
}

describe('the wizard’s CI recipes', () => {
  it('has one recipe per tool the wizard offers, each writing a report covgate finds by name', () => {
    expect(CI_RECIPES.map(({ id, test, report }) => [id, test, report])).toEqual([
      ['c8', 'npx c8 --all --reporter=lcov node --test', 'coverage/lcov.info'],
      [
        'vitest',
        'npx vitest run --coverage --coverage.provider=v8 --coverage.reporter=lcov',
        'coverage/lcov.info',
      ],
      ['jest', 'npx jest --coverage', 'coverage/lcov.info'],
      [
        'coverage-py',
        "sh -c 'python3 -m coverage run --source=. -m pytest && python3 -m coverage xml'",
        'coverage.xml',
      ],
      ['go', 'go test -coverprofile=coverage.out ./...', 'coverage.out'],
      [
        'jacoco-maven',
        'mvn -B org.jacoco:jacoco-maven-plugin:0.8.12:prepare-agent test org.jacoco:jacoco-maven-plugin:0.8.12:report',
        'target/site/jacoco/jacoco.xml',
      ],
      [
        'jacoco-gradle',
        './gradlew test jacocoTestReport',
        'build/reports/jacoco/test/jacocoTestReport.xml',
      ],
    ]);
    expect(recipeOf('go')?.label).toBe('go test');
    expect(recipeOf('npm-test')).toBeUndefined();
  });

  it('gives the exact shell commands: the URL, the token, then the CLI from the server gating the tool’s run', () => {
    const c8 = recipeOf('c8');
    if (!c8) throw new Error('no c8 recipe');
    expect(
      shellRecipe(c8, { apiUrl: 'http://localhost:8080/', repo: 'web', secret: 'cvg_1' }),
    ).toBe(
      [
        'export COVGATE_URL=http://localhost:8080',
        'export COVGATE_TOKEN=cvg_1',
        'npx --yes "$COVGATE_URL/cli/covgate.tgz" run --repo web -- npx c8 --all --reporter=lcov node --test',
      ].join('\n'),
    );
  });

  it('gives the exact GitHub Actions workflow and GitLab CI job of the Go recipe', () => {
    const go = recipeOf('go');
    if (!go) throw new Error('no go recipe');
    expect(githubActionsWorkflow(go, { apiUrl: API, repo: 'api' })).toBe(
      [
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
        '      - uses: actions/setup-go@v5',
        '        with:',
        '          go-version: stable',
        '      - uses: actions/setup-node@v4',
        '        with:',
        '          node-version: 20',
        '      - name: Coverage gate',
        '        run: npx --yes "$COVGATE_URL/cli/covgate.tgz" run --repo api -- go test -coverprofile=coverage.out ./...',
        '        env:',
        '          COVGATE_URL: https://cov.example.com',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expression syntax
        '          COVGATE_TOKEN: ${{ secrets.COVGATE_TOKEN }}',
      ].join('\n'),
    );
    expect(gitlabCiJob(go, { apiUrl: API, repo: 'api' })).toBe(
      [
        'coverage:',
        '  image: golang:1.23',
        '  variables:',
        '    COVGATE_URL: https://cov.example.com',
        '    GIT_DEPTH: 0',
        '    # COVGATE_TOKEN: a masked CI/CD variable of the project (Settings > CI/CD > Variables)',
        '  before_script:',
        '    - apt-get update && apt-get install -y curl && curl -fsSL https://deb.nodesource.com/setup_20.x | bash - && apt-get install -y nodejs',
        '  script:',
        '    - npx --yes "$COVGATE_URL/cli/covgate.tgz" run --repo api -- go test -coverprofile=coverage.out ./...',
      ].join('\n'),
    );
  });

  // A repository name that needs shell quoting, and YAML quoting once quoted for the shell.
  for (const repo of ['web', "it's: #1"]) {
    for (const recipe of CI_RECIPES) {
      it(`${recipe.id}, repo ${JSON.stringify(repo)}: every form runs the same gate command, CI with the whole history`, () => {
        const gate = gateCommand(recipe, repo);
        const shell = shellRecipe(recipe, { apiUrl: API, repo, secret: 'cvg_1' }).split('\n');
        expect(shell.at(-1)).toBe(gate);

        const workflow = parse(githubActionsWorkflow(recipe, { apiUrl: API, repo })) as Workflow;
        expect(workflow.on).toEqual({ push: { branches: ['main'] }, pull_request: null });
        const steps = workflow.jobs.coverage.steps;
        expect(steps[0]).toEqual({ uses: 'actions/checkout@v4', with: { 'fetch-depth': 0 } });
        // covgate itself needs Node.js 20, whatever the language of the tests.
        expect(steps).toContainEqual({
          uses: 'actions/setup-node@v4',
          with: { 'node-version': 20 },
        });
        expect(steps.at(-1)).toEqual({
          name: 'Coverage gate',
          run: gate,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expression syntax
          env: { COVGATE_URL: API, COVGATE_TOKEN: '${{ secrets.COVGATE_TOKEN }}' },
        });

        const job = (parse(gitlabCiJob(recipe, { apiUrl: API, repo })) as GitlabJob).coverage;
        expect(job.variables).toEqual({ COVGATE_URL: API, GIT_DEPTH: 0 });
        expect(job.script).toEqual([gate]);
        expect(job.image).toBe(recipe.gitlab.image);
        expect(job.before_script).toEqual(recipe.gitlab.beforeScript);
        // A job whose image is not Node's installs Node.js 20 for covgate first.
        if (!job.image.startsWith('node:')) {
          expect(job.before_script[0]).toBe(
            'apt-get update && apt-get install -y curl && curl -fsSL https://deb.nodesource.com/setup_20.x | bash - && apt-get install -y nodejs',
          );
        }
      });
    }
  }

  it('are the recipes docs/cli.md gives: each command, each one-time step, the Go jobs in full', () => {
    const docs = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');
    for (const recipe of CI_RECIPES) {
      expect(docs).toContain(`\n${gateCommand(recipe, 'web')}\n`);
      if (recipe.once) expect(docs).toContain(recipe.once.code);
      expect(docs).toContain(`\`${recipe.gitlab.image}\``);
    }
    const go = recipeOf('go');
    if (!go) throw new Error('no go recipe');
    const ci = { apiUrl: 'https://covgate.example.com', repo: 'web' };
    expect(docs).toContain(
      `# .github/workflows/coverage.yml\n${githubActionsWorkflow(go, ci)}\n\`\`\``,
    );
    expect(docs).toContain(`# .gitlab-ci.yml\n${gitlabCiJob(go, ci)}\n\`\`\``);
  });
});
