import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, type Started, startListening, stop } from '../../test/support/processes.js';

// docs/client.md includes the walkthrough (`<<< @/snippets/client-walkthrough.mjs{js}`); here
// it runs, as the page shows it, against the built reference server on an empty store.
const docs = fileURLToPath(new URL('../', import.meta.url));
const SNIPPET = join(docs, 'snippets', 'client-walkthrough.mjs');
const serverDist = join(docs, '..', 'examples', 'server', 'dist');
const built =
  existsSync(join(docs, '..', 'packages', 'client', 'dist', 'index.js')) &&
  existsSync(join(serverDist, 'main.js'));
if (!built) {
  console.warn(
    '[covgate] docs client walkthrough SKIPPED: run `pnpm build` first (`pnpm test` does)',
  );
}

const SERVICE_TOKEN = 'client-walkthrough-service-token-0123456789abcdef';

describe('docs/client.md', () => {
  it('includes the walkthrough file', async () => {
    const page = await readFile(join(docs, 'client.md'), 'utf8');
    expect(page).toContain('<<< @/snippets/client-walkthrough.mjs{js}');
  });
});

describe.skipIf(!built && process.env.CI !== '1')('the client walkthrough, run', () => {
  let dataDir: string;
  let server: Started | undefined;
  const env = () => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NO_COLOR: '1',
    PORT: '0',
    COVGATE_DATA_DIR: dataDir,
    SERVICE_TOKEN,
    SESSION_SECRET: 'client-walkthrough-session-secret-0123456789abcdef',
  });

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'covgate-client-walkthrough-'));
    server = await startListening([join(serverDist, 'main.js')], { cwd: dataDir, env: env() });
  });
  afterAll(async () => {
    await stop(server);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('goes from the service token to a listed run and a refused call', async () => {
    const result = await run(process.execPath, [SNIPPET], {
      cwd: dataDir,
      env: { ...env(), COVGATE_URL: server?.url },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^organisation acme \(org_[0-9a-z]+\), session ses_[0-9a-z]+$/),
      expect.stringMatching(/^token ci \([0-9a-f]{32}\): execute$/),
      expect.stringMatching(/^recorded exe_[0-9a-z]{26}: pass web@main 84\.13% \(delta 0\.00\)$/),
      expect.stringMatching(/^listed exe_[0-9a-z]{26} pass 84\.13%$/),
      'refused: 403 forbidden',
    ]);
    const recorded = /^recorded (exe_\w+):/.exec(lines[2] as string)?.[1];
    expect(lines[3]).toBe(`listed ${recorded} pass 84.13%`);
    // The secret and the session token are never printed.
    expect(result.stdout).not.toMatch(/cvgs?_/);
  });

  it('fails the second time: the organisation exists (409 conflict, exit 1)', async () => {
    const result = await run(process.execPath, [SNIPPET], {
      cwd: dataDir,
      env: { ...env(), COVGATE_URL: server?.url },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^.*CovgateApiError: 409 conflict \(request [^)]+\)$/m);
  });
});
