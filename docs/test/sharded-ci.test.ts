import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { builtService, type PartsService } from '../../test/support/built-parts-service.js';
import { isServerBuilt } from '../../test/support/built-server.js';
import { run } from '../../test/support/processes.js';

// The workflows of the guide "Sharded and matrix CI" (docs/snippets/sharded-ci/, included by
// docs/guide/sharded-ci.md), run as their CI would run them: each job in a fresh clone of a
// small library, its `run:` / `script:` lines through `sh -e -c` with the CI's variables
// (GitHub's matrix and expressions, GitLab's CI_NODE_INDEX/CI_NODE_TOTAL), `npx vitest` and
// `npx covgate` from the project's node_modules (the workspace's Vitest and the built CLI), the
// artifact actions played by copying files as they lay them out, against the built reference
// server. The merged figure must be the unsharded run's, as Vitest reports it.

const snippets = fileURLToPath(new URL('../snippets/sharded-ci/', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const cliBin = join(repoRoot, 'packages/cli/dist/bin.js');
const workspace = createRequire(join(repoRoot, 'packages/cli/package.json'));
const packageDir = (name: string) => dirname(workspace.resolve(`${name}/package.json`));
const built = isServerBuilt() && existsSync(cliBin);
if (!built) console.warn('[covgate] sharded-CI guide workflows SKIPPED: run `pnpm build` first');

const LIBRARY: Record<string, string> = {
  'package.json': '{ "name": "lib", "private": true, "type": "module" }\n',
  '.gitignore': 'node_modules\ncoverage\n',
  'vitest.config.mjs':
    "export default { test: { globals: true, include: ['test/**/*.test.js'], coverage: { provider: 'v8', include: ['src/**'], reporter: ['lcov', 'json-summary'] } } };\n",
  'src/math.js':
    'export function add(a, b) {\n  return a + b;\n}\n\nexport function div(a, b) {\n  if (b === 0) {\n    throw new Error("division by zero");\n  }\n  return a / b;\n}\n',
  'src/text.js':
    'export function shout(s) {\n  return s.toUpperCase() + "!";\n}\n\nexport function never(s) {\n  const t = s.trim();\n  return t.length;\n}\n',
  'test/add.test.js':
    "import { add } from '../src/math.js';\ntest('adds', () => expect(add(1, 2)).toBe(3));\n",
  'test/div.test.js':
    "import { div } from '../src/math.js';\ntest('refuses 0', () => expect(() => div(1, 0)).toThrow());\n",
  'test/shout.test.js':
    "import { shout } from '../src/text.js';\ntest('shouts', () => expect(shout('a')).toBe('A!'));\n",
};

interface GithubStep {
  uses?: string;
  run?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}
interface GithubJob {
  strategy?: { matrix: Record<string, unknown[]> };
  steps: GithubStep[];
}

const readSnippet = async (name: string) => readFile(join(snippets, name), 'utf8');

describe.skipIf(!built && process.env.CI !== '1')('the sharded-CI guide’s workflows', () => {
  let work: string;
  let origin: string;
  let service: PartsService;
  let commit: string;
  /** Vitest's unsharded figure, as its json-summary says it. */
  let unsharded: { covered: number; total: number; pct: number };
  let jobs = 0;

  const git = async (cwd: string, ...args: string[]) => {
    const done = await run('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], {
      cwd,
      env: { PATH: process.env.PATH, HOME: work, GIT_CONFIG_NOSYSTEM: '1' },
    });
    expect(done.code, done.stderr).toBe(0);
    return done.stdout.trim();
  };

  /** A fresh checkout of the library for one job, with its node_modules as `npm ci` makes it. */
  const checkout = async (): Promise<string> => {
    const dir = join(work, `job-${++jobs}`);
    await git(work, 'clone', '-q', origin, dir);
    const modules = join(dir, 'node_modules');
    await mkdir(join(modules, '@vitest'), { recursive: true });
    await mkdir(join(modules, '.bin'));
    await symlink(packageDir('vitest'), join(modules, 'vitest'));
    await symlink(packageDir('@vitest/coverage-v8'), join(modules, '@vitest', 'coverage-v8'));
    await symlink(join(packageDir('vitest'), 'vitest.mjs'), join(modules, '.bin', 'vitest'));
    await symlink(cliBin, join(modules, '.bin', 'covgate'));
    return dir;
  };

  /** Runs one `run:`/`script:` text as the runner does, with no package registry in reach. */
  const shell = async (cwd: string, text: string, env: Record<string, string>) => {
    const done = await run('sh', ['-e', '-c', text], {
      cwd,
      timeoutMs: 180_000,
      env: {
        PATH: process.env.PATH,
        HOME: work,
        NO_COLOR: '1',
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_cache: join(work, 'npm-cache'),
        npm_config_update_notifier: 'false',
        ...env,
      },
    });
    return done;
  };

  /** GitHub's `${{ ... }}` expressions the snippets use, with this job's matrix values. */
  const expand = (text: string, matrix: Record<string, unknown>) =>
    text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
      if (expression === 'vars.COVGATE_URL') return service.env.COVGATE_URL as string;
      if (expression === 'secrets.COVGATE_TOKEN') return service.env.COVGATE_TOKEN as string;
      if (expression === 'toJSON(matrix)') return JSON.stringify(matrix);
      const key = /^matrix\.(\w+)$/.exec(expression)?.[1];
      if (key !== undefined && key in matrix) return String(matrix[key]);
      throw new Error(`no value for \${{ ${expression} }}`);
    });

  /** A GitHub Actions job's steps in a fresh checkout; the artifact actions copy files. */
  const runGithubJob = async (
    job: GithubJob,
    name: string,
    matrix: Record<string, unknown>,
    artifacts: string,
    repository: string,
  ) => {
    const dir = await checkout();
    const github = {
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_REPOSITORY: `acme/${repository}`,
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REF: 'refs/heads/main',
      GITHUB_REF_NAME: 'main',
      GITHUB_REF_TYPE: 'branch',
      GITHUB_SHA: commit,
      GITHUB_EVENT_NAME: 'push',
      GITHUB_JOB: name,
      GITHUB_RUN_ID: '7',
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_WORKFLOW: 'ci',
    };
    const outputs = [];
    for (const step of job.steps) {
      const inputs = Object.fromEntries(
        Object.entries(step.with ?? {}).map(([key, value]) => [key, expand(value, matrix)]),
      );
      if (step.uses?.startsWith('actions/checkout@')) continue;
      if (step.uses?.startsWith('actions/upload-artifact@')) {
        // One file uploaded: the artifact holds it without its folders.
        const path = inputs.path as string;
        await mkdir(join(artifacts, inputs.name as string), { recursive: true });
        await cp(join(dir, path), join(artifacts, inputs.name as string, basename(path)));
        continue;
      }
      if (step.uses?.startsWith('actions/download-artifact@')) {
        // Several artifacts by a pattern: each in a folder named after it.
        const pattern = new RegExp(`^${(inputs.pattern as string).replace('*', '.*')}$`);
        for (const artifact of await readdir(artifacts)) {
          if (pattern.test(artifact))
            await cp(join(artifacts, artifact), join(dir, artifact), { recursive: true });
        }
        continue;
      }
      if (step.run === undefined) throw new Error(`a step the test cannot play: ${step.uses}`);
      const env = Object.fromEntries(
        Object.entries(step.env ?? {}).map(([key, value]) => [key, expand(value, matrix)]),
      );
      const done = await shell(dir, expand(step.run, matrix), { ...github, ...env });
      expect(done.code, `${step.run}\n${done.stdout}\n${done.stderr}`).toBe(0);
      outputs.push(done);
    }
    return outputs;
  };

  /** The jobs of a matrix, one per value of its one key. */
  const matrixOf = (job: GithubJob) =>
    Object.entries(job.strategy?.matrix ?? {}).flatMap(([key, values]) =>
      values.map((value) => ({ [key]: value })),
    );

  /** The runs the service holds of `repo`, newest first. */
  const runsOf = async (repo: string) =>
    (
      (await service.get(`/v1/executions?org=shards&repo=${encodeURIComponent(repo)}`)) as {
        executions: { coverage: number; outcome: string; parts: unknown }[];
      }
    ).executions;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'covgate-sharded-guide-'));
    origin = join(work, 'origin');
    await mkdir(origin);
    for (const [path, text] of Object.entries(LIBRARY)) {
      await mkdir(dirname(join(origin, path)), { recursive: true });
      await writeFile(join(origin, path), text);
    }
    await git(origin, 'init', '-q', '-b', 'main');
    await git(origin, 'add', '-A');
    await git(origin, 'commit', '-q', '-m', 'the library');
    commit = await git(origin, 'rev-parse', 'HEAD');
    const dir = await checkout();
    const whole = await shell(dir, 'npx vitest run --coverage', {});
    expect(whole.code, whole.stderr).toBe(0);
    unsharded = JSON.parse(await readFile(join(dir, 'coverage', 'coverage-summary.json'), 'utf8'))
      .total.lines;
    service = await builtService();
  }, 240_000);

  afterAll(async () => {
    await service?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('GitHub Actions matrix: three parts merged into the unsharded figure, pending until the last', async () => {
    const workflow = parse(await readSnippet('github-matrix.yml')) as { jobs: { test: GithubJob } };
    const matrix = matrixOf(workflow.jobs.test);
    expect(matrix).toEqual([{ shard: 1 }, { shard: 2 }, { shard: 3 }]);
    const verdicts = [];
    for (const values of matrix) {
      const outputs = await runGithubJob(
        workflow.jobs.test,
        'test',
        values,
        join(work, 'a'),
        'gh-matrix',
      );
      verdicts.push(outputs.at(-1)?.stdout.trim().split('\n').at(-1));
    }
    const short = commit.slice(0, 7);
    expect(verdicts.slice(0, 2)).toEqual([
      `pending gh-matrix@main at ${short}: part shard-1 recorded; 1 of 3 parts, missing 2 of 3 parts`,
      `pending gh-matrix@main at ${short}: part shard-2 recorded; 2 of 3 parts, missing 1 of 3 parts`,
    ]);
    expect(verdicts[2]).toBe(
      `gh-matrix@main: coverage ${unsharded.pct.toFixed(2)}%, no baseline on main yet: nothing to compare, recorded as the first run`,
    );
    const [stored] = await runsOf('gh-matrix');
    expect(stored).toMatchObject({ coverage: unsharded.pct, outcome: 'pass' });
  });

  it('the finish job closes a commit whose third part never came: fail, naming what is missing', async () => {
    const matrixWorkflow = parse(await readSnippet('github-matrix.yml')) as {
      jobs: { test: GithubJob };
    };
    for (const values of matrixOf(matrixWorkflow.jobs.test).slice(0, 2)) {
      await runGithubJob(matrixWorkflow.jobs.test, 'test', values, join(work, 'b'), 'gh-finish');
    }
    const finish = parse(await readSnippet('github-finish.yml')) as {
      jobs: { finish: GithubJob };
    };
    const dir = await checkout();
    const step = finish.jobs.finish.steps.find((s) => s.run !== undefined) as GithubStep;
    const env = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([key, value]) => [key, expand(value, {})]),
    );
    const done = await shell(dir, step.run as string, {
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_REPOSITORY: 'acme/gh-finish',
      GITHUB_REF: 'refs/heads/main',
      GITHUB_REF_NAME: 'main',
      GITHUB_SHA: commit,
      GITHUB_EVENT_NAME: 'push',
      GITHUB_JOB: 'finish',
      ...env,
    });
    expect(done.code, done.stdout + done.stderr).toBe(1);
    // Judged on the two parts it has; with a count expected, the reason counts what is missing.
    expect(done.stdout).toMatch(
      new RegExp(
        `^fail gh-finish@main at ${commit.slice(0, 7)}: coverage \\d+\\.\\d\\d%, delta 0\\.00; incomplete: missing 1 of 3 parts\n$`,
      ),
    );
    const [stored] = await runsOf('gh-finish');
    expect(stored).toMatchObject({ outcome: 'fail' });
  });

  it('GitLab parallel: parts named by CI_NODE_INDEX, expected by CI_NODE_TOTAL, without flags', async () => {
    const pipeline = parse(await readSnippet('gitlab-parallel.yml')) as {
      test: { parallel: number; script: string[] };
    };
    const verdicts = [];
    for (let index = 1; index <= pipeline.test.parallel; index += 1) {
      const dir = await checkout();
      const done = await shell(dir, pipeline.test.script.join('\n'), {
        CI: 'true',
        GITLAB_CI: 'true',
        CI_SERVER_URL: 'https://gitlab.com',
        CI_PROJECT_PATH: 'acme/gl-parallel',
        CI_PROJECT_URL: 'https://gitlab.com/acme/gl-parallel',
        CI_COMMIT_SHA: commit,
        CI_COMMIT_REF_NAME: 'main',
        CI_COMMIT_BRANCH: 'main',
        CI_PIPELINE_ID: '11',
        CI_JOB_ID: String(100 + index),
        CI_JOB_NAME: `test ${index}/${pipeline.test.parallel}`,
        CI_NODE_INDEX: String(index),
        CI_NODE_TOTAL: String(pipeline.test.parallel),
        COVGATE_URL: service.env.COVGATE_URL as string,
        COVGATE_TOKEN: service.env.COVGATE_TOKEN as string,
      });
      expect(done.code, done.stdout + done.stderr).toBe(0);
      verdicts.push(done.stdout.trim().split('\n').at(-1));
    }
    const short = commit.slice(0, 7);
    expect(verdicts).toEqual([
      `pending gl-parallel@main at ${short}: part shard-1-of-3 recorded; 1 of 3 parts, missing 2 of 3 parts`,
      `pending gl-parallel@main at ${short}: part shard-2-of-3 recorded; 2 of 3 parts, missing 1 of 3 parts`,
      `gl-parallel@main: coverage ${unsharded.pct.toFixed(2)}%, no baseline on main yet: nothing to compare, recorded as the first run`,
    ]);
  });

  it('one job that downloads every report: one run, not parts, with the unsharded figure', async () => {
    const workflow = parse(await readSnippet('github-download.yml')) as {
      jobs: { test: GithubJob; report: GithubJob };
    };
    const artifacts = join(work, 'artifacts');
    await mkdir(artifacts);
    for (const values of matrixOf(workflow.jobs.test)) {
      await runGithubJob(workflow.jobs.test, 'test', values, artifacts, 'gh-download');
    }
    expect((await readdir(artifacts)).sort()).toEqual(['coverage-1', 'coverage-2', 'coverage-3']);
    const outputs = await runGithubJob(
      workflow.jobs.report,
      'report',
      {},
      artifacts,
      'gh-download',
    );
    const report = outputs.at(-1);
    expect(report?.stderr).toContain('covgate: found coverage-1/lcov.info (lcov)');
    expect(report?.stdout.trim().split('\n').at(-1)).toBe(
      `gh-download@main: coverage ${unsharded.pct.toFixed(2)}%, no baseline on main yet: nothing to compare, recorded as the first run`,
    );
    const stored = await runsOf('gh-download');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ coverage: unsharded.pct, outcome: 'pass' });
    expect(stored[0]?.parts ?? null).toBeNull();
  });
});
