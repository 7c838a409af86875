import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import type { Store } from '@covgate/core';
import { encryptCredential, repositoryLinkCredentialContext } from '@covgate/core/internal';
import {
  type BuiltServer,
  isServerBuilt,
  startBuiltServer,
  startBuiltServers,
} from '@covgate/test-support/built-server';
import { type FakeGithubRest, startFakeGithubRest } from '@covgate/testing';
import { createConnection } from 'mysql2/promise';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOrganisation } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/open-store.js';

// The outbox end to end: runs ingested through the built reference server give their commit
// statuses and pull-request comment to a fake GitHub, through GitHub's outages and restarts of
// the server, and several server processes on one database send each delivery once.
// The 45 s rate limit has a fake GitHub and a server of its own, so that it waits beside the
// other SQLite tests instead of after them.

const built = isServerBuilt();
const SESSION_SECRET = 'e2e-outbox-session-secret-0123456789abcdef';
const GITHUB_TOKEN = 'github_pat_e2eOUTBOXtoken0123456789';
const GITHUB_REPO = 'octo/widgets';
/** How long the fake rate-limits in the scenario of the field test (issue 42). */
const RATE_LIMITED_MS = 45_000;
const silent = pino({ base: null }, new Writable({ write: (_c, _e, done) => done() }));

/** A fresh 40-hex commit SHA. */
let shaCounter = 0;
const nextSha = () => (++shaCounter).toString(16).padStart(40, 'e');

/** The environment of a server on `database` (a `DATABASE_URL`) or the data folder. */
function serverEnv(where: { dataDir: string; databaseUrl?: string }): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    NODE_ENV: 'test',
    PORT: '0',
    COVGATE_DATA_DIR: where.dataDir,
    SESSION_SECRET,
    PUBLIC_URL: 'https://covgate.example.com',
    OUTBOX_POLL_SECONDS: '1',
    // The fake GitHub listens on loopback.
    ALLOW_PRIVATE_CODE_HOSTS: '1',
    // Short waits, yet few enough attempts in a 30 s outage (1, 2, 4, 8, 8... s: about 6) to
    // stay far from the 12 after which a delivery is given up.
    OUTBOX_MAX_BACKOFF_SECONDS: '8',
    ...(where.databaseUrl ? { DATABASE_URL: where.databaseUrl, DATABASE_TLS: 'off' } : {}),
  };
}

/** An organisation with an owner's session, and `web` linked to the fake's repository. */
async function givenLinkedOrganisation(
  store: Store,
  fake: FakeGithubRest,
): Promise<{ orgId: string; session: string }> {
  const boot = await bootstrapOrganisation(store, {
    slug: `outbox-${Date.now().toString(36)}`,
    plan: 'enterprise',
    userId: 'usr_outbox_owner',
    sessionSecret: SESSION_SECRET,
    sessionLifetimeSeconds: undefined,
  });
  const orgId = boot.organisation.id;
  const now = new Date();
  await store.putRepositoryLink({
    orgId,
    repo: 'web',
    host: 'github',
    repository: GITHUB_REPO,
    apiUrl: fake.apiUrl,
    credential: encryptCredential(GITHUB_TOKEN, repositoryLinkCredentialContext(orgId, 'web'), {
      sessionSecret: SESSION_SECRET,
    }),
    credentialHint: '…6789',
    createdBy: 'usr_outbox_owner',
    createdAt: now,
    updatedAt: now,
  });
  return { orgId, session: boot.sessionToken };
}

/** Posts a run of `web`; resolves with its status, id and how long the answer took (ms). */
async function ingest(
  server: BuiltServer,
  session: string,
  run: { commit: string; pullRequest?: number; coverage?: number },
): Promise<{ status: number; id: string; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${server.url}/v1/executions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      repo: 'web',
      branch: 'feature',
      base_branch: 'main',
      coverage: run.coverage ?? 84.13,
      commit: run.commit,
      ...(run.pullRequest ? { pull_request: run.pullRequest } : {}),
      patch: { covered: 21, coverable: 23 },
    }),
  });
  const body = (await response.json()) as { id: string };
  return { status: response.status, id: body.id, ms: performance.now() - started };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** A fake GitHub, a built server on SQLite with `web` linked to it, and its owner's session. */
interface LinkedServer {
  fake: FakeGithubRest;
  server: BuiltServer;
  dataDir: string;
  orgId: string;
  session: string;
}

async function startLinkedServer(): Promise<LinkedServer> {
  const fake = await startFakeGithubRest();
  fake.allowToken(GITHUB_TOKEN, [GITHUB_REPO]);
  const dataDir = await mkdtemp(join(tmpdir(), 'covgate-e2e-outbox-'));
  const config = loadConfig({ COVGATE_DATA_DIR: dataDir, PORT: '0' });
  const store = await openStore(config, silent);
  const { orgId, session } = await givenLinkedOrganisation(store, fake);
  await store.close();
  const server = await startBuiltServer(serverEnv({ dataDir }));
  return { fake, server, dataDir, orgId, session };
}

async function stopLinkedServer(linked: Partial<LinkedServer>): Promise<void> {
  await linked.server?.kill();
  await linked.fake?.close();
  if (linked.dataDir) await rm(linked.dataDir, { recursive: true, force: true });
}

const statusesOf = (fake: FakeGithubRest, sha: string) =>
  fake.statuses.filter((status) => status.sha === sha);

describe.skipIf(!built && process.env.CI !== '1')(
  'the outbox on the built reference server (SQLite)',
  () => {
    describe('with GitHub answering, down, and the server restarted', { concurrent: true }, () => {
      let fake: FakeGithubRest;
      let server: BuiltServer;
      let dataDir: string;
      let session: string;
      let orgId: string;

      beforeAll(async () => {
        ({ fake, server, dataDir, orgId, session } = await startLinkedServer());
      });

      afterAll(async () => {
        await stopLinkedServer({ fake, server, dataDir });
      });

      it.sequential('sets covgate/project and covgate/patch on the commit and comments once on the pull request', async ({
        expect,
      }) => {
        const sha = nextSha();
        const run = await ingest(server, session, { commit: sha, pullRequest: 5 });
        expect(run.status).toBe(201);

        await expect
          .poll(() => fake.commentsOf(GITHUB_REPO, 5).length, { timeout: 20_000 })
          .toBe(1);
        await expect.poll(() => statusesOf(fake, sha).length, { timeout: 20_000 }).toBe(2);
        const runUrl = `https://covgate.example.com/dashboard/repos/web/runs/${run.id}`;
        expect(statusesOf(fake, sha)).toEqual([
          {
            repo: GITHUB_REPO,
            sha,
            state: 'success',
            context: 'covgate/project',
            description: '84.13% (no baseline) pass',
            target_url: runUrl,
          },
          {
            repo: GITHUB_REPO,
            sha,
            state: 'success',
            context: 'covgate/patch',
            description: 'patch 91.30% >= 80% pass',
            target_url: runUrl,
          },
        ]);
        const [comment] = fake.commentsOf(GITHUB_REPO, 5);
        expect(comment?.body.split('\n').slice(0, 3)).toEqual([
          '<!-- covgate:pr-comment -->',
          `<!-- covgate:run ${run.id} -->`,
          '### covgate: **pass**',
        ]);
        expect(comment?.body).toContain(`[Open the run in covgate](${runUrl})`);
        await server.waitForLine(/repository\.credential\.use/);
        const uses = server
          .stdout()
          .split('\n')
          .filter((line) => line.includes('[audit] repository.credential.use'));
        expect(uses).toHaveLength(3);
        expect(uses[0]).toMatch(
          new RegExp(
            `\\[audit\\] repository\\.credential\\.use org_id=${orgId} repo=web delivery=dlv_[0-9a-z]{26}`,
          ),
        );
        expect(server.output()).not.toContain(GITHUB_TOKEN);
      });

      it.sequential('edits the comment on a second push instead of adding one', async ({
        expect,
      }) => {
        const sha = nextSha();
        const run = await ingest(server, session, { commit: sha, pullRequest: 5, coverage: 90.5 });
        expect(run.status).toBe(201);

        await expect
          .poll(() => fake.commentsOf(GITHUB_REPO, 5)[0]?.edits, { timeout: 20_000 })
          .toBe(1);
        const comments = fake.commentsOf(GITHUB_REPO, 5);
        expect(comments).toHaveLength(1);
        expect(comments[0]?.body).toContain(`<!-- covgate:run ${run.id} -->`);
        await expect.poll(() => statusesOf(fake, sha).length, { timeout: 20_000 }).toBe(2);
      });

      it.sequential('keeps ingest fast while GitHub is down for 30 s, and sends the statuses after it recovers', async ({
        expect,
      }) => {
        // Warm the server first, then alternate blocks of runs with GitHub up and down, so that
        // neither state gets the warm-up or a drift of the machine's load to itself.
        for (let index = 0; index < 5; index += 1)
          await ingest(server, session, { commit: nextSha() });
        const up: number[] = [];
        const down: number[] = [];
        const downShas: string[] = [];
        let downSince = 0;
        for (let round = 0; round < 3; round += 1) {
          await fake.setDown(null);
          for (let index = 0; index < 5; index += 1) {
            up.push((await ingest(server, session, { commit: nextSha() })).ms);
          }
          await fake.setDown('refuse');
          downSince = Date.now();
          for (let index = 0; index < 5; index += 1) {
            const sha = nextSha();
            downShas.push(sha);
            const run = await ingest(server, session, { commit: sha });
            expect(run.status).toBe(201);
            down.push(run.ms);
          }
        }
        await server.waitForLine(
          /\[outbox\] .* not sent \(GitHub unreachable: ECONNREFUSED\)/,
          15_000,
        );
        const lastDown = downShas.slice(-5);
        expect(lastDown.flatMap((sha) => statusesOf(fake, sha))).toEqual([]);
        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(0, 30_000 - (Date.now() - downSince))),
        );
        await fake.setDown(null);

        await expect
          .poll(() => downShas.filter((sha) => statusesOf(fake, sha).length === 2).length, {
            timeout: 30_000,
            interval: 500,
          })
          .toBe(15);
        console.info(
          `[outbox e2e] ingest p50 with GitHub up ${median(up).toFixed(1)} ms, down ${median(down).toFixed(1)} ms (15 runs each in alternated blocks of 5 after 5 warm-up runs, load ${loadavg()[0]?.toFixed(2)})`,
        );
        // The outage is GitHub's, not ingest's: no worse than twice the p50 with GitHub up, plus
        // 20 ms for a loaded machine's noise.
        expect(median(down)).toBeLessThan(2 * median(up) + 20);
      }, 120_000);

      it.sequential('loses no delivery across a restart while GitHub is down', async ({
        expect,
      }) => {
        await fake.setDown('refuse');
        const sha = nextSha();
        const run = await ingest(server, session, { commit: sha, pullRequest: 6 });
        expect(run.status).toBe(201);
        await server.waitForLine(
          new RegExp(`\\(comment of web, run ${run.id}\\) attempt 1 not sent`),
          15_000,
        );
        expect(await server.stop('SIGTERM')).toBe(0);

        await fake.setDown(null);
        server = await startBuiltServer(serverEnv({ dataDir }));

        await expect.poll(() => statusesOf(fake, sha).length, { timeout: 30_000 }).toBe(2);
        await expect
          .poll(() => fake.commentsOf(GITHUB_REPO, 6).length, { timeout: 30_000 })
          .toBe(1);
      }, 90_000);
    });

    describe('with GitHub rate-limiting', { concurrent: true }, () => {
      let fake: FakeGithubRest;
      let server: BuiltServer;
      let dataDir: string;
      let session: string;

      beforeAll(async () => {
        ({ fake, server, dataDir, session } = await startLinkedServer());
      });

      afterAll(async () => {
        await stopLinkedServer({ fake, server, dataDir });
      });

      it.sequential('delivers all 12 deliveries of 4 runs after 45 s of secondary rate limit then a 500', async ({
        expect,
      }) => {
        fake.failFor(
          {
            status: 403,
            headers: { 'retry-after': '1' },
            body: { message: 'You have exceeded a secondary rate limit.' },
          },
          RATE_LIMITED_MS,
        );
        fake.failNext({ status: 500, body: { message: 'Server Error' } });
        const limitedSince = Date.now();
        const shas = [nextSha(), nextSha(), nextSha(), nextSha()];
        for (const [index, sha] of shas.entries()) {
          expect(
            (await ingest(server, session, { commit: sha, pullRequest: 40 + index })).status,
          ).toBe(201);
        }
        const delivered = () =>
          shas.flatMap((sha) => statusesOf(fake, sha)).length +
          shas.filter((_, index) => fake.commentsOf(GITHUB_REPO, 40 + index).length === 1).length;

        await new Promise((resolve) => setTimeout(resolve, RATE_LIMITED_MS - 1_000));
        expect(delivered()).toBe(0);
        await expect.poll(delivered, { timeout: 30_000, interval: 250 }).toBe(12);
        const after = ((Date.now() - limitedSince - RATE_LIMITED_MS) / 1000).toFixed(1);

        const requests = fake.requests;
        console.info(
          `[outbox e2e] ${RATE_LIMITED_MS / 1000} s of 403 retry-after 1, then one 500: ${delivered()} of 12 deliveries delivered, the last ${after} s after the limit ended; ${requests.length} requests in all`,
        );
        for (const sha of shas) expect(statusesOf(fake, sha)).toHaveLength(2);
        for (let index = 0; index < 4; index += 1) {
          expect(fake.commentsOf(GITHUB_REPO, 40 + index)).toHaveLength(1);
        }
        expect(server.output()).not.toMatch(/\[outbox\] .* failed:/);
        expect(server.output()).not.toContain('gave up');
      }, 120_000);
    });
  },
);

const mysqlUrl = process.env.COVGATE_MYSQL_URL;

describe.skipIf(!mysqlUrl || (!built && process.env.CI !== '1'))(
  'the outbox with two server processes on MariaDB',
  () => {
    let fake: FakeGithubRest;
    let servers: BuiltServer[] = [];
    let dataDir: string;
    let session: string;

    beforeAll(async () => {
      const base = new URL(mysqlUrl as string);
      const database = `${base.pathname.slice(1) || 'covgate'}_outbox_e2e`;
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
      const databaseUrl = base.toString();
      fake = await startFakeGithubRest();
      fake.allowToken(GITHUB_TOKEN, [GITHUB_REPO]);
      dataDir = await mkdtemp(join(tmpdir(), 'covgate-e2e-outbox-mysql-'));
      const store = await openStore(
        loadConfig({ DATABASE_URL: databaseUrl, PORT: '0', DATABASE_TLS: 'off' }),
        silent,
      );
      ({ session } = await givenLinkedOrganisation(store, fake));
      await store.close();
      servers = await startBuiltServers(2, serverEnv({ dataDir, databaseUrl }), {
        listenTimeoutMs: 90_000,
      });
    }, 120_000);

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.kill()));
      await fake?.close();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('sends each delivery exactly once: one status per commit and one comment per pull request', async () => {
      const runs = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          ingest(servers[index % 2] as BuiltServer, session, {
            commit: nextSha(),
            pullRequest: 100 + index,
          }),
        ),
      );
      expect(runs.map((run) => run.status)).toEqual(Array(20).fill(201));

      await expect
        .poll(() => fake.statuses.length + fake.comments.size, { timeout: 60_000, interval: 500 })
        .toBe(20 * 3);
      // Both processes poll every second: give a duplicate the time to show.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const sent = fake.requests.filter((line) => line.startsWith('POST'));
      expect(sent).toHaveLength(60);
      expect(new Set(fake.statuses.map((status) => `${status.sha} ${status.context}`)).size).toBe(
        40,
      );
      for (let index = 0; index < 20; index += 1) {
        expect(fake.commentsOf(GITHUB_REPO, 100 + index).map((each) => each.edits)).toEqual([0]);
      }
      const senders = servers.map(
        (server) =>
          server
            .stdout()
            .split('\n')
            .filter((line) => line.includes('repository.credential.use')).length,
      );
      expect(senders.reduce((sum, count) => sum + count, 0)).toBe(60);
    }, 120_000);
  },
);
