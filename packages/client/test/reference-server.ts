import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run, type Started, startListening } from '../../../test/support/processes.js';

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
  let server: Started;
  try {
    server = await startListening([join(DIST, 'main.js')], {
      cwd: dataDir,
      env,
      timeoutMs: 20_000,
    });
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }

  return {
    url: server.url,
    async bootstrap(slug, plan = 'free') {
      const { code, stdout, stderr } = await run(
        process.execPath,
        [join(DIST, 'admin.js'), 'bootstrap', slug, '--plan', plan],
        { cwd: dataDir, env },
      );
      const token = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(stdout)?.[1];
      if (code !== 0 || !token) throw new Error(`bootstrap failed (${code}): ${stdout}${stderr}`);
      return token;
    },
    async stop() {
      await server.stop('SIGTERM');
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
