import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import {
  type BuiltServer,
  isServerBuilt,
  startBuiltServers,
} from '@covgate/test-support/built-server';
import { createConnection } from 'mysql2/promise';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOrganisation } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/open-store.js';

/**
 * Two built reference-server processes on one store: in each round an invite is accepted
 * through one process while its owner revokes it through the other, at once. Exactly one of
 * them wins: the invite is accepted and the revocation answers `409`, or it is revoked and
 * the acceptance is refused; never `204` for an invite that was accepted.
 */
const ROUNDS = 20;
const SESSION_SECRET = 'invite-races-secret-0123456789abcdef';
const mysqlUrl = process.env.COVGATE_MYSQL_URL;
const silent = pino({ base: null }, new Writable({ write: (_c, _e, done) => done() }));
const built = isServerBuilt();
if (!built) {
  console.warn('[covgate] invite race suite SKIPPED: build the server first (pnpm build)');
} else if (!mysqlUrl) {
  console.warn('[covgate] invite races on MariaDB SKIPPED: set COVGATE_MYSQL_URL');
}

/** A database of its own on the server of `url`, made afresh, as a `mysql://` URL. */
async function freshDatabase(url: string): Promise<string> {
  const base = new URL(url);
  const database = `${base.pathname.slice(1) || 'covgate'}_invite_races`;
  const admin = await createConnection({
    host: base.hostname,
    port: Number(base.port || 3306),
    user: decodeURIComponent(base.username),
    password: decodeURIComponent(base.password),
  });
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.query(`CREATE DATABASE \`${database}\``);
  await admin.end();
  base.pathname = `/${database}`;
  return base.toString();
}

/** How one round ended: the two statuses, the invite's listed status, the loser's body. */
interface Round {
  accept: number;
  revoke: number;
  listed: string;
  loser: string;
}

function describeRaces(backend: string, runnable: boolean, storeEnv: () => Promise<object>) {
  describe.skipIf(!runnable)(
    `an invite accepted and revoked at once, two processes on ${backend}`,
    () => {
      let dataDir: string;
      let servers: BuiltServer[] = [];
      let owner: string;
      let newcomers: string[];

      beforeAll(async () => {
        dataDir = await mkdtemp(join(tmpdir(), 'covgate-invite-races-'));
        const env = { COVGATE_DATA_DIR: dataDir, PORT: '0', ...(await storeEnv()) };
        const store = await openStore(loadConfig(env), silent);
        const suffix = Date.now().toString(36);
        const bootstrap = (slug: string, userId: string) =>
          bootstrapOrganisation(store, {
            slug,
            plan: 'enterprise',
            userId,
            sessionSecret: SESSION_SECRET,
            sessionLifetimeSeconds: undefined,
          });
        try {
          owner = (await bootstrap(`races-${suffix}`, `usr_races_owner_${suffix}`)).sessionToken;
          newcomers = [];
          for (let round = 0; round < ROUNDS; round++) {
            const newcomer = await bootstrap(`races-${suffix}-${round}`, `usr_races_${round}`);
            newcomers.push(newcomer.sessionToken);
          }
        } finally {
          await store.close();
        }
        servers = await startBuiltServers(2, {
          PATH: process.env.PATH,
          NODE_ENV: 'test',
          SESSION_SECRET,
          ENTERPRISE_RATE_LIMIT: '1000000',
          ...env,
        });
        // Two server start-ups: up to 35 s each on a loaded machine.
      }, 180_000);

      afterAll(async () => {
        await Promise.all(servers.map((server) => server.kill()));
        if (dataDir) await rm(dataDir, { recursive: true, force: true });
      });

      const call = (
        server: number,
        method: string,
        path: string,
        session: string,
        body?: unknown,
      ) =>
        fetch(`${servers[server]?.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });

      it(`lets exactly one of the acceptance and the revocation win, ${ROUNDS} rounds`, async () => {
        const rounds: Round[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const created = await call(round % 2, 'POST', '/v1/invites', owner, { role: 'admin' });
          expect(created.status).toBe(201);
          const invite = (await created.json()) as { id: string; token: string };
          const here = round % 2;
          const there = 1 - here;

          const [accepted, revoked] = await Promise.all([
            call(here, 'POST', '/v1/invites/accept', newcomers[round] as string, {
              token: invite.token,
            }),
            call(there, 'DELETE', `/v1/invites/${invite.id}`, owner),
          ]);

          const listing = (await (await call(there, 'GET', '/v1/invites', owner)).json()) as {
            invites: { id: string; status: string }[];
          };
          const listed = listing.invites.find((entry) => entry.id === invite.id)?.status ?? 'none';
          const loser = accepted.status === 200 ? revoked : accepted;
          rounds.push({
            accept: accepted.status,
            revoke: revoked.status,
            listed,
            loser: await loser.text(),
          });
        }

        const tally = new Map<string, number>();
        for (const { accept, revoke, listed } of rounds) {
          const key = `accept ${accept} + revoke ${revoke}, listed ${listed}`;
          tally.set(key, (tally.get(key) ?? 0) + 1);
        }
        console.info(`[covgate] invite races on ${backend}:`, Object.fromEntries(tally));
        for (const [round, outcome] of rounds.entries()) {
          expect(
            [
              {
                accept: 200,
                revoke: 409,
                listed: 'accepted',
                loser: '{"error":"invite already accepted"}',
              },
              {
                accept: 400,
                revoke: 204,
                listed: 'revoked',
                loser: '{"error":"invalid or expired invite"}',
              },
            ],
            `round ${round}`,
          ).toContainEqual(outcome);
        }
      }, 120_000);
    },
  );
}

describeRaces('SQLite', built, async () => ({}));
describeRaces('MariaDB', built && mysqlUrl !== undefined, async () => ({
  DATABASE_URL: await freshDatabase(mysqlUrl as string),
}));
