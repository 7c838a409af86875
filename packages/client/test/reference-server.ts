import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folder of the built reference server (`pnpm --filter @covgate/server build`). */
const DIST = fileURLToPath(new URL('../../../examples/server/dist/', import.meta.url));

/** Whether the reference server is built. */
export const serverBuilt = existsSync(join(DIST, 'main.js')) && existsSync(join(DIST, 'admin.js'));

export const SERVICE_TOKEN = 'client-tests-service-token-0123456789abcdef';
const SESSION_SECRET = 'client-tests-session-secret-0123456789abcdef';
export const DASHBOARD_ORIGIN = 'http://dashboard.test';

/** The built reference server on the embedded store in a temporary data folder. */
export interface ReferenceServer {
  url: string;
  /** Runs `covgate-admin bootstrap <slug>` against the same data and returns the session token it prints. */
  bootstrap(slug: string, plan?: 'free' | 'team' | 'enterprise'): Promise<string>;
  stop(): Promise<void>;
}

export async function startReferenceServer(): Promise<ReferenceServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'covgate-client-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NO_COLOR: '1',
    NODE_ENV: 'test',
    PORT: '0',
    COVGATE_DATA_DIR: dataDir,
    SERVICE_TOKEN,
    SESSION_SECRET,
    ALLOWED_ORIGINS: DASHBOARD_ORIGIN,
  };
  const child = spawn(process.execPath, [join(DIST, 'main.js')], { cwd: dataDir, env });
  const output: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start: ${output.join('')}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      output.push(String(chunk));
      const match = /covgate listening on (http:\/\/[^"\s]+)/.exec(output.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code}: ${output.join('')}`));
    });
  });

  return {
    url,
    async bootstrap(slug, plan = 'free') {
      const { code, stdout, stderr } = await runNode(
        [join(DIST, 'admin.js'), 'bootstrap', slug, '--plan', plan],
        { cwd: dataDir, env },
      );
      const token = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(stdout)?.[1];
      if (code !== 0 || !token) throw new Error(`bootstrap failed (${code}): ${stdout}${stderr}`);
      return token;
    },
    async stop() {
      await stopChild(child);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function runNode(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
