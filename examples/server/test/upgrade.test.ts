import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  type BuiltServer,
  isServerBuilt,
  startBuiltServer,
} from '@covgate/test-support/built-server';
import { createClient } from '@libsql/client';
import mysql from 'mysql2/promise';
import { afterAll, describe, expect, it } from 'vitest';

// Upgrading from the previous release: a data folder (SQLite) and a MariaDB schema made by the
// code of commit 181f836 (fixtures/upgrade-181f836, README there says how), then the current
// built server started on them. Its migrations bring them up to date, and the old session, the
// old API token and the old runs keep working.

const fixtureDir = fileURLToPath(new URL('./fixtures/upgrade-181f836/', import.meta.url));
const mysqlUrl = process.env.COVGATE_MYSQL_URL;

interface FixtureStore {
  store: 'sqlite' | 'mariadb';
  sessionToken: string;
  apiToken: string;
  /** web/main (84.13), web/feature/login (82.9), api/main (71.5), in that order. */
  runs: [string, string, string];
}

interface Credentials {
  release: string;
  org: string;
  sessionSecret: string;
  tokenPepper: string;
  stores: FixtureStore[];
}

const credentials = JSON.parse(
  await readFile(join(fixtureDir, 'credentials.json'), 'utf8'),
) as Credentials;
const fixtureOf = (store: FixtureStore['store']) =>
  credentials.stores.find((entry) => entry.store === store) as FixtureStore;

/** A day from now: the fixture's session was made for 7 days, whenever the fixture was made. */
const tomorrow = () => new Date(Date.now() + 86_400_000);

const serverEnv = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  PORT: '0',
  NODE_ENV: 'test',
  SESSION_SECRET: credentials.sessionSecret,
  TOKEN_PEPPER: credentials.tokenPepper,
  ...extra,
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The newest migration a store package ships (its drizzle journal's last tag). */
async function latestMigration(store: 'sqlite' | 'mysql'): Promise<string> {
  const path = new URL(`../../../packages/${store}/drizzle/meta/_journal.json`, import.meta.url);
  const journal = JSON.parse(await readFile(fileURLToPath(path), 'utf8')) as {
    entries: { tag: string }[];
  };
  return journal.entries.at(-1)?.tag as string;
}

/** The start-up line naming the schema's move from the fixture's last migration. */
async function expectMigratedFromRelease(server: BuiltServer, store: 'sqlite' | 'mysql') {
  const line = await server.waitForLine(/database schema migrated from (\S+) to (\S+)/, 5_000);
  expect([line[1], line[2]]).toEqual(['0007_baselines', await latestMigration(store)]);
}

/** What a user of the previous release relies on, checked against the upgraded server. */
async function expectOldDataWorks(server: BuiltServer, fixture: FixtureStore): Promise<void> {
  const org = credentials.org;
  const session = await fetch(`${server.url}/v1/session`, {
    headers: bearer(fixture.sessionToken),
  });
  expect(session.status).toBe(200);

  const tokens = await fetch(`${server.url}/v1/tokens`, { headers: bearer(fixture.sessionToken) });
  expect(tokens.status).toBe(200);
  const tokenList = JSON.stringify(await tokens.json());
  expect(tokenList).toContain('"name":"ci"');

  const web = await fetch(`${server.url}/v1/executions?org=${org}&repo=web`, {
    headers: bearer(fixture.apiToken),
  });
  expect(web.status).toBe(200);
  const webBody = (await web.json()) as {
    executions: { id: string; branch: string; coverage: number }[];
  };
  expect(webBody.executions.map((run) => [run.id, run.branch, run.coverage]).sort()).toEqual(
    [
      [fixture.runs[0], 'main', 84.13],
      [fixture.runs[1], 'feature/login', 82.9],
    ].sort(),
  );
  const api = await fetch(`${server.url}/v1/executions?org=${org}&repo=api`, {
    headers: bearer(fixture.apiToken),
  });
  expect(((await api.json()) as { executions: { id: string }[] }).executions[0]?.id).toBe(
    fixture.runs[2],
  );

  // A new run with the old token, gated against the old run of main (84.13): -1.23 fails.
  const ingest = await fetch(`${server.url}/v1/executions`, {
    method: 'POST',
    headers: { ...bearer(fixture.apiToken), 'content-type': 'application/json' },
    body: JSON.stringify({ repo: 'web', branch: 'feature/upgrade', coverage: 82.9 }),
  });
  expect(ingest.status).toBe(201);
  const run = (await ingest.json()) as { outcome: string; baseline_coverage?: number | null };
  expect(run.outcome).toBe('fail');

  const badge = await fetch(`${server.url}/v1/badge/${org}/web`);
  expect(badge.status).toBe(200);
  expect(await badge.text()).toContain('aria-label="coverage: 84%"');

  // A session created now still works beside the old one.
  const created = await fetch(`${server.url}/v1/tokens`, {
    method: 'POST',
    headers: { ...bearer(fixture.sessionToken), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'after-upgrade' }),
  });
  expect(created.status).toBe(201);
}

describe.skipIf(!isServerBuilt())(`upgrade from ${credentials.release}`, () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  it('starts on a data folder of the previous release: old session, token and runs work', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'covgate-upgrade-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const database = join(dataDir, 'covgate.db');
    await copyFile(join(fixtureDir, 'covgate.db'), database);
    const db = createClient({ url: pathToFileURL(database).href });
    await db.execute({
      sql: 'UPDATE sessions SET expires_at = ?',
      args: [tomorrow().getTime()],
    });
    db.close();

    const server = await startBuiltServer(serverEnv({ COVGATE_DATA_DIR: dataDir }));
    cleanups.push(() => server.kill());
    await expectMigratedFromRelease(server, 'sqlite');
    await expectOldDataWorks(server, fixtureOf('sqlite'));
    expect(await server.stop('SIGTERM')).toBe(0);

    // Started again on the upgraded file: nothing left to migrate, everything still there.
    const again = await startBuiltServer(serverEnv({ COVGATE_DATA_DIR: dataDir }));
    cleanups.push(() => again.kill());
    await again.waitForLine(
      new RegExp(`database schema up to date at ${await latestMigration('sqlite')}`),
      5_000,
    );
    const list = await fetch(`${again.url}/v1/executions?org=${credentials.org}&repo=web`, {
      headers: bearer(fixtureOf('sqlite').apiToken),
    });
    expect(((await list.json()) as { total: number }).total).toBe(3);
    expect(await again.stop('SIGTERM')).toBe(0);
  });

  describe.skipIf(!mysqlUrl && process.env.COVGATE_REQUIRE_MYSQL !== '1')('on MariaDB', () => {
    it('starts on a schema of the previous release: old session, token and runs work', async () => {
      if (!mysqlUrl) throw new Error('COVGATE_REQUIRE_MYSQL=1 but COVGATE_MYSQL_URL is unset');
      // A database of its own beside COVGATE_MYSQL_URL's, loaded from the release's dump.
      const url = new URL(mysqlUrl);
      const name = `${url.pathname.slice(1) || 'test'}_upgrade_${process.pid}`;
      const admin = await mysql.createConnection({
        host: url.hostname,
        port: Number(url.port || 3306),
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        multipleStatements: true,
      });
      cleanups.push(async () => {
        await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
        await admin.end();
      });
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\`; CREATE DATABASE \`${name}\``);
      await admin.query(
        `USE \`${name}\`; ${await readFile(join(fixtureDir, 'mariadb.sql'), 'utf8')}`,
      );
      await admin.query(`UPDATE \`${name}\`.sessions SET expires_at = ?`, [tomorrow()]);

      url.pathname = `/${name}`;
      const server = await startBuiltServer(
        serverEnv({ DATABASE_URL: url.href, COVGATE_DATA_DIR: join(tmpdir(), name) }),
      );
      cleanups.push(() => server.kill());
      await expectMigratedFromRelease(server, 'mysql');
      await expectOldDataWorks(server, fixtureOf('mariadb'));
      expect(await server.stop('SIGTERM')).toBe(0);
      const [migrations] = (await admin.query(
        `SELECT COUNT(*) AS applied FROM \`${name}\`.__drizzle_migrations`,
      )) as unknown as [{ applied: number }[]];
      const journal = JSON.parse(
        await readFile(
          fileURLToPath(
            new URL('../../../packages/mysql/drizzle/meta/_journal.json', import.meta.url),
          ),
          'utf8',
        ),
      ) as { entries: unknown[] };
      expect(Number(migrations[0]?.applied)).toBe(journal.entries.length);
    });
  });
});
