import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Store } from '@covgate/core';
import { decryptRepositoryLinkCredential } from '@covgate/core/internal';
import {
  type BuiltServer,
  isServerBuilt,
  startBuiltServer,
} from '@covgate/test-support/built-server';
import { type FakeGithubRest, startFakeGithubRest } from '@covgate/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOrganisation } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/open-store.js';

// A repository linked the way a person links it (POST /v1/repos/github-link on the built
// reference server), then its runs' statuses sent with the token given there, through a
// rotation of SESSION_SECRET: the token sealed by the API opens in the outbox's sender, is
// sealed again under the new secret at its first use, and still works once the old secret is
// dropped.

const built = isServerBuilt();
const OLD_SECRET = 'e2e-repo-link-old-session-secret-0123456789';
const NEW_SECRET = 'e2e-repo-link-new-session-secret-9876543210';
const GITHUB_TOKEN = 'github_pat_e2eLINKtoken0123456789wxyz';
const GITHUB_REPO = 'octo/gadgets';
const SERVICE_TOKEN = 'e2e-repo-link-service-token-0123456789abcdef';
const silent = pino({ base: null }, new Writable({ write: (_c, _e, done) => done() }));

let shaCounter = 0;
const nextSha = () => (++shaCounter).toString(16).padStart(40, 'a');

describe.skipIf(!built && process.env.CI !== '1')(
  'a repository linked through the API on the built reference server',
  () => {
    let fake: FakeGithubRest;
    let server: BuiltServer | undefined;
    let dataDir: string;
    let session: string;
    let apiToken: string;
    let orgId: string;
    let orgSlug: string;

    const env = (secrets: { current: string; previous?: string }) => ({
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      PORT: '0',
      COVGATE_DATA_DIR: dataDir,
      SESSION_SECRET: secrets.current,
      ...(secrets.previous ? { SESSION_SECRET_PREVIOUS: secrets.previous } : {}),
      SERVICE_TOKEN,
      PUBLIC_URL: 'https://covgate.example.com',
      OUTBOX_POLL_SECONDS: '1',
      // The fake GitHub listens on loopback.
      ALLOW_PRIVATE_CODE_HOSTS: '1',
    });
    const withStore = async <T>(work: (store: Store) => Promise<T>): Promise<T> => {
      const store = await openStore(loadConfig({ COVGATE_DATA_DIR: dataDir, PORT: '0' }), silent);
      try {
        return await work(store);
      } finally {
        await store.close();
      }
    };
    const send = (method: string, body?: unknown) =>
      fetch(`${server?.url}/v1/repos/github-link?org=${orgSlug}&repo=web`, {
        method,
        headers: {
          authorization: `Bearer ${session}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const ingest = async (commit: string) => {
      const response = await fetch(`${server?.url}/v1/executions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ repo: 'web', branch: 'feature', coverage: 84.13, commit }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    const statusesOf = (sha: string) => fake.statuses.filter((status) => status.sha === sha);

    beforeAll(async () => {
      fake = await startFakeGithubRest();
      fake.allowToken(GITHUB_TOKEN, [GITHUB_REPO]);
      dataDir = await mkdtemp(join(tmpdir(), 'covgate-e2e-repo-link-'));
      await withStore(async (store) => {
        const boot = await bootstrapOrganisation(store, {
          slug: 'linking',
          plan: 'enterprise',
          userId: 'usr_linking_owner',
          sessionSecret: OLD_SECRET,
          sessionLifetimeSeconds: undefined,
        });
        orgId = boot.organisation.id;
        orgSlug = boot.organisation.slug;
        session = boot.sessionToken;
      });
      server = await startBuiltServer(env({ current: OLD_SECRET }));
      // Runs are posted with an API token, which outlives the session secret's rotation.
      const created = await fetch(`${server.url}/v1/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ci' }),
      });
      apiToken = ((await created.json()) as { secret: string }).secret;
    });

    afterAll(async () => {
      await server?.kill();
      await fake?.close();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('sends the statuses of a run with the token an owner linked through the API', async () => {
      const linked = await send('POST', {
        github_repo: GITHUB_REPO,
        token: GITHUB_TOKEN,
        api_url: 'https://github.example.com/api/v3',
      });
      expect(linked.status).toBe(200);
      expect(((await linked.json()) as { token_hint: string }).token_hint).toBe('…wxyz');
      // The API takes https API URLs only and the fake speaks http: point the stored link at
      // the fake, leaving the sealed token as the API stored it.
      await withStore(async (store) => {
        const link = await store.findRepositoryLink(orgId, 'web');
        if (!link) throw new Error('no link stored');
        await store.putRepositoryLink({ ...link, apiUrl: fake.apiUrl });
      });

      const sha = nextSha();
      await ingest(sha);
      await expect.poll(() => statusesOf(sha).length, { timeout: 30_000 }).toBe(1);
      expect(statusesOf(sha)[0]).toMatchObject({
        repo: GITHUB_REPO,
        state: 'success',
        context: 'covgate/project',
      });
      expect(server?.stdout()).toContain(`[audit] repository.link org_id=${orgId} repo=web`);
      expect(server?.output()).not.toContain(GITHUB_TOKEN);
    });

    it('keeps sending through a rotation of SESSION_SECRET: the token is sealed again at its first use', async () => {
      await server?.stop('SIGTERM');
      server = await startBuiltServer(env({ current: NEW_SECRET, previous: OLD_SECRET }));
      const during = nextSha();
      await ingest(during);
      await expect.poll(() => statusesOf(during).length, { timeout: 30_000 }).toBe(1);
      const resealed = await withStore(async (store) => store.findRepositoryLink(orgId, 'web'));
      expect(
        decryptRepositoryLinkCredential(resealed as NonNullable<typeof resealed>, {
          sessionSecret: NEW_SECRET,
        }),
      ).toEqual({ plaintext: GITHUB_TOKEN, underPreviousSecret: false });

      await server?.stop('SIGTERM');
      server = await startBuiltServer(env({ current: NEW_SECRET }));
      const after = nextSha();
      await ingest(after);
      await expect.poll(() => statusesOf(after).length, { timeout: 30_000 }).toBe(1);
      expect(server?.output()).not.toContain(GITHUB_TOKEN);
    });

    it('enqueues nothing for a run once the repository is unlinked', async () => {
      // The owner's session was stored under the dropped secret: a new one.
      const signedIn = await fetch(`${server?.url}/v1/sessions/create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${SERVICE_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ user_id: 'usr_linking_owner', org_id: orgId }),
      });
      expect(signedIn.status).toBe(201);
      session = ((await signedIn.json()) as { token: string }).token;
      const removed = await send('DELETE');
      expect(removed.status).toBe(204);
      const id = await ingest(nextSha());
      expect(await withStore((store) => store.listRunDeliveries(orgId, id))).toEqual([]);
    });
  },
);
