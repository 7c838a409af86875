import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DIST,
  freePort,
  isServerBuilt,
  startBuiltServer,
} from '@covgate/test-support/built-server';
import { createConnection } from 'mysql2/promise';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../../test/support/processes.js';

const built = isServerBuilt() && existsSync(join(DIST, 'admin.js'));
if (!built) console.warn('[covgate] operating commands SKIPPED: run `pnpm build` first');
const mysqlUrl = process.env.COVGATE_MYSQL_URL;

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
const journal = JSON.parse(
  readFileSync(
    new URL('../../../packages/sqlite/drizzle/meta/_journal.json', import.meta.url),
    'utf8',
  ),
) as { entries: Array<{ tag: string }> };
const LATEST = journal.entries.at(-1)?.tag as string;
const COUNT = journal.entries.length;
const STRONG = 'o'.repeat(40);

const server = (args: string[], env: NodeJS.ProcessEnv) =>
  run(process.execPath, [join(DIST, 'main.js'), ...args], { env, timeoutMs: 60_000 });
const admin = (args: string[], env: NodeJS.ProcessEnv) =>
  run(process.execPath, [join(DIST, 'admin.js'), ...args], { env, timeoutMs: 60_000 });

const folders: string[] = [];
async function dataFolder(): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'covgate-ops-'));
  folders.push(parent);
  return join(parent, 'data');
}
const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

/** A JSON log line's message, or the whole line when it is not JSON. */
const messages = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      try {
        return (JSON.parse(line) as { msg: string }).msg;
      } catch {
        return line;
      }
    });

afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

describe.skipIf(!built && process.env.CI !== '1')('covgate-server and covgate-admin', () => {
  const base = { PATH: process.env.PATH, NODE_ENV: 'test', HOST: '127.0.0.1' };

  it('--help and --version print and exit 0 without starting; an unknown option exits 2', async () => {
    const env = { ...base, PORT: String(await freePort()), COVGATE_DATA_DIR: await dataFolder() };
    const version = await server(['--version'], env);
    expect(version).toMatchObject({ code: 0, stdout: `covgate-server ${VERSION}\n`, stderr: '' });
    const help = await server(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: covgate-server \[--no-migrate\]\n/);
    expect(help.stdout).toContain('--no-migrate  do not migrate (as COVGATE_MIGRATE=off)');
    expect(existsSync(env.COVGATE_DATA_DIR)).toBe(false);
    const bad = await server(['--port', '1'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^covgate-server: Unknown option '--port'/);
    expect((await admin(['--version'], env)).stdout).toBe(`covgate-admin ${VERSION}\n`);
  });

  it('creates the data folder 0700 and the database 0600, logs the migration, then up to date, and redirects / to the dashboard', async () => {
    const dir = await dataFolder();
    const env = { ...base, PORT: '0', COVGATE_DATA_DIR: dir };
    const first = await startBuiltServer(env);
    try {
      expect(messages(first.stdout())).toContain(
        `database schema migrated from none to ${LATEST} (${COUNT} migrations)`,
      );
      // The start-up sign-in link is the first write: the WAL file exists after it.
      await first.waitForLine(/more links: pnpm admin login-link/, 20_000);
      expect(await mode(dir)).toBe('700');
      expect(await mode(join(dir, 'covgate.db'))).toBe('600');
      expect(await mode(join(dir, 'covgate.db-wal'))).toBe('600');
      expect(await mode(join(dir, 'session-secret'))).toBe('600');
      for (const method of ['GET', 'HEAD']) {
        const root = await fetch(`${first.url}/`, { method, redirect: 'manual' });
        expect([method, root.status, root.headers.get('location')]).toEqual([
          method,
          302,
          '/dashboard/',
        ]);
      }
      const post = await fetch(`${first.url}/`, { method: 'POST', redirect: 'manual' });
      expect(post.status).toBe(404);
    } finally {
      expect(await first.stop('SIGTERM')).toBe(0);
    }
    const again = await startBuiltServer(env);
    try {
      expect(messages(again.stdout())).toContain(`database schema up to date at ${LATEST}`);
    } finally {
      await again.stop('SIGTERM');
    }
  });

  it('--no-migrate and COVGATE_MIGRATE=off refuse a schema that is behind; migrate status and up', async () => {
    const dir = await dataFolder();
    const env = { ...base, PORT: '0', COVGATE_DATA_DIR: dir };
    const refusal = `covgate: refusing to start: the database schema is at none and this release needs ${LATEST} (${COUNT} pending migrations); migrations are off (--no-migrate or COVGATE_MIGRATE=off): run covgate-admin migrate up, then start again`;
    for (const [args, extra] of [
      [['--no-migrate'], {}],
      [[], { COVGATE_MIGRATE: 'off' }],
    ] as const) {
      const refused = await server([...args], { ...env, ...extra });
      expect(refused.code).toBe(1);
      expect(messages(refused.stdout)).toEqual([refusal]);
    }

    const before = await admin(['migrate', 'status'], env);
    expect(before.code).toBe(1);
    expect(before.stdout).toBe(
      `schema:  none\nrelease: ${LATEST}\npending: ${journal.entries.map((e) => e.tag).join(', ')}\n`,
    );
    const up = await admin(['migrate', 'up'], env);
    expect(up).toMatchObject({
      code: 0,
      stdout: `database schema migrated from none to ${LATEST} (${COUNT} migrations)\n`,
    });
    expect((await admin(['migrate', 'up'], env)).stdout).toBe(
      `database schema up to date at ${LATEST}\n`,
    );
    const after = await admin(['migrate', 'status'], env);
    expect(after).toMatchObject({
      code: 0,
      stdout: `schema:  ${LATEST}\nrelease: ${LATEST}\npending: none\n`,
    });

    const started = await startBuiltServer({ ...env, COVGATE_MIGRATE: 'off' });
    try {
      expect(messages(started.stdout())).toContain(
        `database schema up to date at ${LATEST} (migrations off: COVGATE_MIGRATE=off or --no-migrate)`,
      );
    } finally {
      await started.stop('SIGTERM');
    }
    // migrate up made the development secret of a new folder: bootstrap accepts it.
    expect((await admin(['bootstrap', 'acme'], env)).code).toBe(0);
  });

  it('covgate-admin refuses, in one line, to write a development secret with NODE_ENV=production or into a server folder with its own secret', async () => {
    const dir = await dataFolder();
    const production = { ...base, NODE_ENV: 'production', COVGATE_DATA_DIR: dir };
    const refused = await admin(['bootstrap', 'acme'], production);
    expect(refused).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `covgate-admin: refusing to write a development session secret into ${dir} with NODE_ENV=production: run covgate-admin with the server's SESSION_SECRET\n`,
    });
    expect((await admin(['login-link', 'acme'], production)).code).toBe(1);

    // A production server on the embedded store, with its own SESSION_SECRET, made this folder.
    const serverEnv = {
      ...production,
      PORT: '0',
      SERVICE_TOKEN: STRONG,
      SESSION_SECRET: STRONG,
      COVGATE_ALLOW_EMBEDDED_STORE: '1',
    };
    const owner = await startBuiltServer(serverEnv);
    await owner.stop('SIGTERM');
    const foreign = await admin(['bootstrap', 'acme'], { ...base, COVGATE_DATA_DIR: dir });
    expect(foreign).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `covgate-admin: refusing to write a development session secret into ${dir}: its database belongs to a server with its own SESSION_SECRET; run covgate-admin with that server's environment (SESSION_SECRET, NODE_ENV, DATABASE_URL, COVGATE_DATA_DIR)\n`,
    });
    expect(existsSync(join(dir, 'session-secret'))).toBe(false);
    const right = await admin(['bootstrap', 'acme'], { ...serverEnv, PORT: undefined });
    expect(right.code).toBe(0);
  });

  it('names the host, the port and the time waited when the database refuses or never answers', async () => {
    const closed = await freePort();
    const env = {
      ...base,
      PORT: '0',
      COVGATE_DATA_DIR: await dataFolder(),
      DATABASE_CONNECT_TIMEOUT_SECONDS: '1',
    };
    const refused = await server([], {
      ...env,
      DATABASE_URL: `mysql://covgate:secret-password@127.0.0.1:${closed}/covgate`,
    });
    expect(refused.code).toBe(1);
    expect(messages(refused.stdout)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^covgate: failed to start: cannot reach the database at 127\\.0\\.0\\.1:${closed}: connection refused \\(ECONNREFUSED\\) after \\d+\\.\\d s; check DATABASE_URL's host and port`,
        ),
      ),
    ]);
    expect(refused.stdout).not.toContain('secret-password');

    // A listener on loopback that accepts and never says a word: MySQL's greeting never comes.
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const started = performance.now();
      const mute = await server([], {
        ...env,
        DATABASE_URL: `mysql://covgate:secret-password@127.0.0.1:${port}/covgate`,
      });
      expect(mute.code).toBe(1);
      const [line] = messages(mute.stdout);
      const waited = Number(/after (\d+\.\d) s/.exec(line ?? '')?.[1]);
      expect(line).toMatch(
        new RegExp(
          `^covgate: failed to start: cannot reach the database at 127\\.0\\.0\\.1:${port}: no answer \\(ETIMEDOUT\\) after \\d+\\.\\d s`,
        ),
      );
      expect(waited).toBeGreaterThanOrEqual(1);
      expect(waited * 1000).toBeLessThanOrEqual(performance.now() - started);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  describe.skipIf(!mysqlUrl)('on MySQL', () => {
    const database = `ops_migrate_${process.pid}`;
    const url = new URL(mysqlUrl ?? 'mysql://localhost/x');
    url.pathname = `/${database}`;
    const root = async () => {
      const admin = new URL(mysqlUrl as string);
      admin.pathname = '/';
      return createConnection({ uri: admin.href });
    };
    afterAll(async () => {
      if (!mysqlUrl) return;
      const connection = await root();
      await connection.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await connection.end();
    });

    it('migrate status and up; production without TLS starts with DATABASE_TLS=off and a warning', async () => {
      const connection = await root();
      await connection.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await connection.query(`CREATE DATABASE \`${database}\``);
      await connection.end();
      const env = { ...base, DATABASE_URL: url.href, COVGATE_DATA_DIR: await dataFolder() };
      expect((await admin(['migrate', 'status'], env)).stdout).toContain('schema:  none\n');
      expect((await admin(['migrate', 'up'], env)).stdout).toBe(
        `database schema migrated from none to ${LATEST} (${COUNT} migrations)\n`,
      );
      expect((await admin(['migrate', 'status'], env)).code).toBe(0);

      const production = {
        ...env,
        NODE_ENV: 'production',
        PORT: '0',
        SERVICE_TOKEN: STRONG,
        SESSION_SECRET: STRONG,
      };
      const refused = await server([], production);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain(
        'DATABASE_URL must require TLS in production (sslmode=require, verify-ca or verify-full), or set DATABASE_TLS=off for a database on the same host or a private network',
      );
      const started = await startBuiltServer({ ...production, DATABASE_TLS: 'off' });
      try {
        const lines = started
          .stdout()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { level: number; msg: string })
          .map(({ level, msg }) => ({ level, msg }));
        expect(lines).toContainEqual({
          level: 40,
          msg: `DATABASE_TLS=off: the connection to the database at ${url.hostname}:${url.port || 3306} is not encrypted; keep the database on this host or a private network`,
        });
        expect(lines.map((line) => line.msg)).toContain(`database schema up to date at ${LATEST}`);
      } finally {
        await started.stop('SIGTERM');
      }
    });
  });
});
