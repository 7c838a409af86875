import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { DIST } from './built-server.js';
import { run, type Started, startListening, stop } from './processes.js';

/** A covgate service a test posts runs to: in process, or the built reference server. */
export interface PartsService {
  /** `COVGATE_URL` and `COVGATE_TOKEN` of a CI job that reaches it. */
  env: Record<string, string>;
  /** The CLI's fetch: the in-process API's handler, or the network. */
  fetch: typeof fetch;
  /** `GET path` with the token; resolves with the JSON body of a `200`. */
  get: (path: string) => Promise<unknown>;
  close: () => Promise<void>;
}

/**
 * The built reference server (`examples/server/dist/main.js`) on its embedded SQLite store in
 * a folder of its own, with an organisation bootstrapped by its admin command and an API token.
 */
export async function builtService(): Promise<PartsService> {
  const dir = await mkdtemp(join(tmpdir(), 'covgate-shards-server-'));
  const serverEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    PORT: '0',
    COVGATE_DATA_DIR: join(dir, 'data'),
  };
  let server: Started | undefined;
  try {
    server = await startListening([join(DIST, 'main.js')], { cwd: dir, env: serverEnv });
    const admin = await run(process.execPath, [join(DIST, 'admin.js'), 'bootstrap', 'shards'], {
      cwd: dir,
      env: serverEnv,
    });
    const session = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin.stdout)?.[1];
    expect(session, admin.stdout + admin.stderr).toBeDefined();
    const created = await fetch(`${server.url}/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ci' }),
    });
    expect(created.status).toBe(201);
    const { secret } = (await created.json()) as { secret: string };
    const url = server.url;
    const started = server;
    return {
      env: { COVGATE_URL: url, COVGATE_TOKEN: secret },
      fetch: globalThis.fetch,
      get: async (path) => {
        const answer = await fetch(`${url}${path}`, {
          headers: { authorization: `Bearer ${secret}` },
        });
        expect(answer.status, path).toBe(200);
        return answer.json();
      },
      close: async () => {
        await stop(started);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stop(server);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
