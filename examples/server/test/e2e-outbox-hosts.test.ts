import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { CodeHostKind, Store } from '@covgate/core';
import { encryptCredential, repositoryLinkCredentialContext } from '@covgate/core/internal';
import {
  type BuiltServer,
  isServerBuilt,
  startBuiltServer,
} from '@covgate/test-support/built-server';
import { type FakeAnswer, startFakeGiteaRest, startFakeGitlabRest } from '@covgate/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, type ExpectStatic, it } from 'vitest';
import { bootstrapOrganisation } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/open-store.js';

// The outbox's faults on the built reference server, per code host other than GitHub (whose
// own are in e2e-outbox.test.ts): the host down for 60 s while runs are ingested and the
// server restarted meanwhile, the host's rate limit, and its refusals shown on the link.
// Each host has its own fake, server and data folder, so the hosts run side by side (their
// outages overlap instead of adding up); a host's own tests run in order.

const built = isServerBuilt();
const SESSION_SECRET = 'e2e-outbox-hosts-secret-0123456789abcdef';
const TOKEN = 'host_token_e2eOUTBOX0123456789';
const DOWN_MS = 60_000;
const silent = pino({ base: null }, new Writable({ write: (_c, _e, done) => done() }));

let shaCounter = 0;
const nextSha = () => (++shaCounter).toString(16).padStart(40, 'd');

/** What the scenario needs of a host's fake, in host-neutral words. */
interface HostFake {
  apiUrl: string;
  /** `[sha, name]` of every status received, in order. */
  statuses(): [string, string][];
  comments(request: number): { body: string }[];
  failFor(answer: FakeAnswer, ms: number): void;
  setDown(mode: 'refuse' | 'hang' | null): Promise<void>;
  close(): Promise<void>;
}

interface HostCase {
  kind: CodeHostKind;
  name: string;
  repository: string;
  start(repository: string): Promise<HostFake>;
  rateLimited: FakeAnswer;
  refusedToken: string;
}

const hosts: HostCase[] = [
  {
    kind: 'gitlab',
    name: 'GitLab',
    repository: 'octo/platform/widgets',
    async start(repository) {
      const fake = await startFakeGitlabRest();
      fake.allowToken(TOKEN, [repository]);
      return {
        apiUrl: fake.apiUrl,
        statuses: () => fake.statuses.map((each) => [each.sha, each.name]),
        comments: (request) => fake.notesOf(repository, request),
        failFor: fake.failFor,
        setDown: fake.setDown,
        close: fake.close,
      };
    },
    rateLimited: {
      status: 429,
      headers: { 'retry-after': '1', 'ratelimit-remaining': '0' },
      body: { message: 'Retry later' },
    },
    refusedToken: 'GitLab refused the token: revoked, expired or mistyped (401): 401 Unauthorized',
  },
  {
    kind: 'gitea',
    name: 'Gitea',
    repository: 'octo/widgets',
    async start(repository) {
      const fake = await startFakeGiteaRest();
      fake.allowToken(TOKEN, [repository]);
      return {
        apiUrl: fake.apiUrl,
        statuses: () => fake.statuses.map((each) => [each.sha, each.context]),
        comments: (request) => fake.commentsOf(repository, request),
        failFor: fake.failFor,
        setDown: fake.setDown,
        close: fake.close,
      };
    },
    rateLimited: {
      status: 429,
      headers: { 'retry-after': '1' },
      body: { message: 'Too Many Requests' },
    },
    refusedToken: 'Gitea refused the token (401): user does not exist [uid: 0, name: ]',
  },
];

function serverEnv(dataDir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    NODE_ENV: 'test',
    PORT: '0',
    COVGATE_DATA_DIR: dataDir,
    SESSION_SECRET,
    PUBLIC_URL: 'https://covgate.example.com',
    OUTBOX_POLL_SECONDS: '1',
    ALLOW_PRIVATE_CODE_HOSTS: '1',
    // Waits of 1, 2, 4, 8, 16, 30 s, each at least half that with jitter: at most 9 attempts
    // in the 60 s outage, below the 12 of the give-up (a cap of 8 s allowed 12: measured).
    OUTBOX_MAX_BACKOFF_SECONDS: '30',
  };
}

describe.skipIf(!built && process.env.CI !== '1').each(hosts)(
  'the outbox towards $name on the built reference server',
  { concurrent: true },
  (host) => {
    let fake: HostFake;
    let server: BuiltServer;
    let dataDir: string;
    let session: string;
    let orgSlug: string;
    let store: Store;

    const link = async (repo: string, token: string) => {
      const now = new Date();
      const orgId = (await store.findOrganisationBySlug(orgSlug))?.id as string;
      await store.putRepositoryLink({
        orgId,
        repo,
        host: host.kind,
        repository: host.repository,
        apiUrl: fake.apiUrl,
        credential: encryptCredential(token, repositoryLinkCredentialContext(orgId, repo), {
          sessionSecret: SESSION_SECRET,
        }),
        credentialHint: '…6789',
        createdBy: 'usr_hosts_owner',
        createdAt: now,
        updatedAt: now,
      });
    };

    const ingest = async (
      expect: ExpectStatic,
      run: { repo?: string; commit: string; request?: number; coverage?: number },
    ) => {
      const response = await fetch(`${server.url}/v1/executions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          repo: run.repo ?? 'web',
          branch: 'feature',
          base_branch: 'main',
          coverage: run.coverage ?? 84.13,
          commit: run.commit,
          ...(run.request ? { pull_request: run.request } : {}),
          patch: { covered: 21, coverable: 23 },
        }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };

    const statusesOf = (sha: string) => fake.statuses().filter(([each]) => each === sha);

    beforeAll(async () => {
      fake = await host.start(host.repository);
      dataDir = await mkdtemp(join(tmpdir(), `covgate-e2e-outbox-${host.kind}-`));
      store = await openStore(loadConfig({ COVGATE_DATA_DIR: dataDir, PORT: '0' }), silent);
      orgSlug = `hosts-${host.kind}-${Date.now().toString(36)}`;
      const boot = await bootstrapOrganisation(store, {
        slug: orgSlug,
        plan: 'enterprise',
        userId: 'usr_hosts_owner',
        sessionSecret: SESSION_SECRET,
        sessionLifetimeSeconds: undefined,
      });
      session = boot.sessionToken;
      await link('web', TOKEN);
      await link('revoked', 'revoked_REVOKED_token');
      await store.close();
      server = await startBuiltServer(serverEnv(dataDir));
    }, 60_000);

    afterAll(async () => {
      await server?.kill();
      await fake?.close();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it.sequential(`delivers every status once and one comment showing the newest run after ${DOWN_MS / 1000} s down and a restart`, async ({
      expect,
    }) => {
      await fake.setDown('refuse');
      const downSince = Date.now();
      const shas = [nextSha(), nextSha(), nextSha()];
      const ids: string[] = [];
      for (const [index, sha] of shas.entries()) {
        ids.push(await ingest(expect, { commit: sha, request: 8, coverage: 80 + index }));
      }
      await server.waitForLine(
        new RegExp(`not sent \\(${host.name} unreachable: ECONNREFUSED\\)`),
        15_000,
      );
      expect(await server.stop('SIGTERM')).toBe(0);
      server = await startBuiltServer(serverEnv(dataDir));
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, DOWN_MS - (Date.now() - downSince))),
      );
      await fake.setDown(null);

      await expect
        .poll(() => shas.filter((sha) => statusesOf(sha).length === 2).length, {
          timeout: 45_000,
          interval: 500,
        })
        .toBe(3);
      await expect
        .poll(() => fake.comments(8)[0]?.body.includes(`<!-- covgate:run ${ids[2]} -->`), {
          timeout: 30_000,
        })
        .toBe(true);
      // Give a duplicate the time to show: both poll every second.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      for (const sha of shas) {
        expect(
          statusesOf(sha)
            .map(([, name]) => name)
            .sort(),
        ).toEqual(['covgate/patch', 'covgate/project']);
      }
      expect(fake.comments(8)).toHaveLength(1);
      expect(server.output()).not.toMatch(/\[outbox\] .* failed:/);
    }, 180_000);

    it.sequential('waits out 10 s of the rate limit and then delivers all', async ({ expect }) => {
      fake.failFor(host.rateLimited, 10_000);
      const sha = nextSha();
      await ingest(expect, { commit: sha, request: 9 });

      await server.waitForLine(
        new RegExp(`held back \\(${host.name} rate limit \\(429\\)`),
        15_000,
      );
      await expect.poll(() => statusesOf(sha).length, { timeout: 40_000, interval: 500 }).toBe(2);
      await expect.poll(() => fake.comments(9).length, { timeout: 20_000 }).toBe(1);
      expect(server.output()).not.toMatch(/\[outbox\] .* failed:/);
    }, 90_000);

    it.sequential("fails a refused token at once, with the host's reason on the repository's link", async ({
      expect,
    }) => {
      await ingest(expect, { repo: 'revoked', commit: nextSha() });
      const read = async () => {
        const response = await fetch(
          `${server.url}/v1/repos/code-host-link?org=${orgSlug}&repo=revoked`,
          { headers: { authorization: `Bearer ${session}` } },
        );
        return (await response.json()) as {
          host: string;
          failures: { kind: string; reason: string; status: number | null }[];
        };
      };

      await expect.poll(async () => (await read()).failures.length, { timeout: 20_000 }).toBe(2);
      const link = await read();
      expect(link.host).toBe(host.kind);
      expect(link.failures.map((each) => [each.status, each.reason])).toEqual([
        [401, host.refusedToken],
        [401, host.refusedToken],
      ]);
      expect(server.output()).not.toContain('REVOKED');
    }, 60_000);
  },
);
