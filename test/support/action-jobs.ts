import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { type FakeOidcIssuer, startFakeOidcIssuer } from './fake-oidc-issuer.js';
import { listen, type RunningServer } from './http-server.js';
import { run, type Started, startListening, stop } from './processes.js';

// The GitHub Action (action.yml at the repository root) run as the Actions runner runs its
// composite step: the inputs evaluated into the step's environment, the step's script run by
// bash in its working directory with the runner's variables and files, `npx` answered by the
// workspace's built CLI (and `npx c8` by the workspace's c8), against the built reference
// server, which trusts a fake GitHub Actions OIDC issuer on loopback.

const repo = fileURLToPath(new URL('../../', import.meta.url));
const cliBin = join(repo, 'packages/cli/dist/bin.js');
const serverDist = join(repo, 'examples/server/dist');

/** Whether the CLI and the reference server are built (`pnpm build`). */
export const actionJobsBuilt = existsSync(cliBin) && existsSync(join(serverDist, 'main.js'));

/** A step of action.yml. */
interface ActionStep {
  shell: string;
  'working-directory': string;
  env: Record<string, string>;
  run: string;
}

/** action.yml as parsed. */
export interface ActionFile {
  inputs: Record<string, { required: boolean; default?: string }>;
  runs: { using: string; steps: ActionStep[] };
}

/** The repository's action.yml. */
export const action = parse(readFileSync(join(repo, 'action.yml'), 'utf8')) as ActionFile;

/** The job's `GITHUB_TOKEN` (`github.token`) in the simulated jobs. */
export const JOB_TOKEN = 'ghs_job_token';

/** The audience the server accepts on ID tokens of the fake issuer. */
export const OIDC_AUDIENCE = 'covgate-action-test';

/**
 * `${{ inputs.NAME }}` as the runner evaluates it: the value given, else the default, whose
 * `${{ github.token }}` is the job's token.
 */
function evaluateInput(template: string, given: Record<string, string>): string {
  return template.replace(/\$\{\{\s*inputs\.([a-z-]+)\s*\}\}/g, (_, name: string) => {
    const input = action.inputs[name];
    if (!input) throw new Error(`action.yml uses an undeclared input ${name}`);
    return (given[name] ?? input.default ?? '').replace(
      /\$\{\{\s*github\.token\s*\}\}/g,
      JOB_TOKEN,
    );
  });
}

/** What the action's step did. */
export interface ActionJob {
  code: number;
  stdout: string;
  stderr: string;
  summary: string;
  output: string;
  /** The arguments the step gave `npx`, in order. */
  npxArgs: string[];
}

/** The variables of a git process that reads no user or system configuration. */
export const gitEnv = {
  PATH: process.env.PATH,
  HOME: '/nonexistent',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t.invalid',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t.invalid',
};

/** Runs git in `cwd`; its trimmed stdout, or throws with its stderr. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await run('git', args, { cwd, env: gitEnv });
  if (result.code !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** The running server, its organisation's credentials, and the means to run the action. */
export interface ActionJobs {
  workDir: string;
  server: Started;
  /** An API token of the organisation the server was bootstrapped with. */
  token: string;
  /** The owner's session. */
  session: string;
  /** The folder of the fake `npx` (put it first on PATH). */
  fakeBin: string;
  /** GitHub's ID token service for the job (`ACTIONS_ID_TOKEN_REQUEST_URL`'s origin). */
  tokenServiceOrigin: string;
  /** The server's `PUBLIC_URL` (its default OIDC audience) with `ownAudience`, else its URL. */
  publicUrl: string;
  /** Runs the action's step as the runner does, with `inputs` and the job's variables. */
  runStep(
    dir: string,
    inputs: Record<string, string>,
    github: Record<string, string>,
  ): Promise<ActionJob>;
  close(): Promise<void>;
}

/** A TCP port free on loopback a moment ago. */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return port;
}

/**
 * Starts the built server (data in a temporary folder, organisation `org` bootstrapped, one
 * API token made) and GitHub's ID token service for the jobs, whose tokens name
 * `octo/web@refs/heads/main`. The server accepts ID tokens for the audience
 * {@link OIDC_AUDIENCE}; with `ownAudience`, for its own `PUBLIC_URL` (its default, which
 * is what a job asks for when it leaves the audience to the CLI).
 */
export async function startActionJobs(
  org: string,
  options: { ownAudience?: boolean } = {},
): Promise<ActionJobs> {
  const workDir = await mkdtemp(join(tmpdir(), 'covgate-action-'));
  // Keyless CI: the server trusts a fake GitHub Actions issuer on loopback, and GitHub's
  // token service is a server on loopback that signs with it whatever audience is asked.
  const issuer: FakeOidcIssuer = await startFakeOidcIssuer();
  const tokenService: RunningServer = await listen((request, response) => {
    const url = new URL(request.url ?? '/', 'http://token.service');
    if (request.headers.authorization !== 'Bearer request-token') {
      response.writeHead(401).end('{}');
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    issuer
      .sign({
        aud: url.searchParams.get('audience') ?? '',
        repository: 'octo/web',
        ref: 'refs/heads/main',
        iat: now,
        nbf: now,
        exp: now + 300,
      })
      .then((value) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ count: 1, value }));
      });
  });
  const port = options.ownAudience ? await freePort() : 0;
  const publicUrl = options.ownAudience ? `http://127.0.0.1:${port}` : undefined;
  const audience = publicUrl ? { PUBLIC_URL: publicUrl } : { OIDC_AUDIENCE };
  const serverEnv = {
    PATH: process.env.PATH,
    HOME: workDir,
    PORT: String(port),
    COVGATE_DATA_DIR: join(workDir, 'data'),
    OIDC_GITHUB: issuer.issuer,
    ...audience,
    ALLOW_PRIVATE_CODE_HOSTS: '127.0.0.1',
  };
  const server = await startListening([join(serverDist, 'main.js')], {
    cwd: workDir,
    env: serverEnv,
  });
  const admin = await run(process.execPath, [join(serverDist, 'admin.js'), 'bootstrap', org], {
    cwd: workDir,
    env: serverEnv,
  });
  const session = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin.stdout)?.[1] as string;
  const created = await fetch(`${server.url}/v1/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'actions' }),
  });
  const token = ((await created.json()) as { secret: string }).secret;

  // `npx` on the runner's PATH: records its arguments, then runs the workspace's CLI; `npx c8`
  // runs the workspace's c8, as a project with c8 in its devDependencies would.
  const fakeBin = join(workDir, 'bin');
  const c8Bin = join(
    createRequire(join(repo, 'packages/cli/package.json'))
      .resolve('c8/package.json')
      .replace(/package\.json$/, ''),
    'bin/c8.js',
  );
  await mkdir(fakeBin);
  await writeFile(
    join(fakeBin, 'npx'),
    `#!/bin/sh\nif [ "$1" = c8 ]; then shift; exec "${process.execPath}" "${c8Bin}" "$@"; fi\nprintf '%s\\n' "$@" > "${join(workDir, 'npx-args')}"\n[ "$1" = --yes ] || exit 97\nshift 2\nexec "${process.execPath}" "${cliBin}" "$@"\n`,
  );
  await chmod(join(fakeBin, 'npx'), 0o755);

  const runStep: ActionJobs['runStep'] = async (dir, inputs, github) => {
    const [step] = action.runs.steps as [ActionStep];
    const stepEnv = Object.fromEntries(
      Object.entries(step.env).map(([name, value]) => [name, evaluateInput(value, inputs)]),
    );
    const runnerTemp = await mkdtemp(join(workDir, 'runner-'));
    const summaryFile = join(runnerTemp, 'step_summary');
    const outputFile = join(runnerTemp, 'output');
    await writeFile(summaryFile, '');
    await writeFile(outputFile, '');
    await rm(join(workDir, 'npx-args'), { force: true });
    const script = join(runnerTemp, 'step.sh');
    await writeFile(script, step.run);
    const cwd = join(dir, evaluateInput(step['working-directory'], inputs));
    // The runner runs a bash step as `bash --noprofile --norc -eo pipefail {0}`.
    const result = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      cwd,
      env: {
        PATH: `${fakeBin}:${process.env.PATH}`,
        HOME: runnerTemp,
        NO_COLOR: '1',
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_WORKSPACE: dir,
        GITHUB_ACTION_PATH: repo,
        GITHUB_REPOSITORY: 'octo/web',
        GITHUB_STEP_SUMMARY: summaryFile,
        GITHUB_OUTPUT: outputFile,
        RUNNER_TEMP: runnerTemp,
        ...github,
        ...stepEnv,
      },
    });
    const npxArgsFile = join(workDir, 'npx-args');
    return {
      ...result,
      summary: await readFile(summaryFile, 'utf8'),
      output: await readFile(outputFile, 'utf8'),
      npxArgs: existsSync(npxArgsFile)
        ? (await readFile(npxArgsFile, 'utf8')).split('\n').slice(0, -1)
        : [],
    };
  };

  return {
    workDir,
    server,
    token,
    session,
    fakeBin,
    tokenServiceOrigin: tokenService.origin,
    publicUrl: publicUrl ?? server.url,
    runStep,
    async close() {
      await stop(server);
      await tokenService.close();
      await issuer.close();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
