import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, type Started, startListening } from '../../../test/support/processes.js';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const built = existsSync(join(dist, 'main.js')) && existsSync(join(dist, 'admin.js'));
if (!built) {
  console.warn(
    '[covgate] reference server walkthrough SKIPPED: run `pnpm build` first (`pnpm test` does)',
  );
}

/** Runs `node dist/<script> <args>` to its end. */
const runScript = (script: string, args: string[], env: NodeJS.ProcessEnv) =>
  run(process.execPath, [join(dist, script), ...args], { env });

describe.skipIf(!built && process.env.CI !== '1')(
  'README walkthrough on the built reference server',
  () => {
    let dataDir: string;
    let server: Started;
    let baseUrl: string;
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'covgate-walkthrough-'));
      env = { PATH: process.env.PATH, PORT: '0', COVGATE_DATA_DIR: dataDir };
      server = await startListening([join(dist, 'main.js')], { env });
      baseUrl = server.url;
    });

    afterAll(async () => {
      await server?.stop('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    });

    it('goes from bootstrap to a listed execution and a rendered badge', async () => {
      expect(await (await fetch(`${baseUrl}/health`)).json()).toEqual({ status: 'ok' });

      const admin = await runScript('admin.js', ['bootstrap', 'acme'], env);
      expect(admin.code, admin.stderr).toBe(0);
      const sessionToken = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin.stdout)?.[1] as string;
      expect(sessionToken).toBeDefined();
      expect(admin.stderr).toMatch(
        /^\[audit\] session\.create user_id=usr_admin org_id=org_[0-9a-z]{26} session_id=ses_[0-9a-z]{26}$/m,
      );

      const created = await fetch(`${baseUrl}/v1/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sessionToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ci' }),
      });
      expect(created.status).toBe(201);
      const { secret } = (await created.json()) as { secret: string };

      for (const body of [
        { repo: 'web', branch: 'main', coverage: 84.13 },
        { repo: 'web', branch: 'feature/login', coverage: 82.9 },
      ]) {
        const ingest = await fetch(`${baseUrl}/v1/executions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(ingest.status).toBe(201);
      }

      const list = await fetch(`${baseUrl}/v1/executions?org=acme&repo=web`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      const listed = (await list.json()) as {
        executions: { branch: string; delta: string; outcome: string }[];
        total: number;
      };
      expect(listed.total).toBe(2);
      expect(listed.executions.map((e) => [e.branch, e.delta, e.outcome])).toEqual([
        ['feature/login', '-1.23', 'fail'],
        ['main', '0.00', 'pass'],
      ]);

      const badge = await fetch(`${baseUrl}/v1/badge/acme/web`);
      expect(badge.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(await badge.text()).toContain('84%');
    });

    it('refuses to bootstrap a code-host slug (kept for personal organisations), exit code 2', async () => {
      const refused = await runScript('admin.js', ['bootstrap', 'github-4242'], env);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toBe(
        'covgate-admin: reserved slug: github-... is kept for personal organisations\n',
      );
    });

    it('keeps data on disk across a restart of the admin command', async () => {
      const again = await runScript('admin.js', ['bootstrap', 'acme'], env);
      expect(again.stdout).toContain('[existing]');
    });

    it('shuts down gracefully on SIGTERM with exit code 0', async () => {
      expect(await server.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    });
  },
);
