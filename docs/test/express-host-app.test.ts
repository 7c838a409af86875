import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM, launchChromium } from '@covgate/test-support/chromium';
import express from 'express';
import helmet from 'helmet';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, type Started, startListening, stop } from '../../test/support/processes.js';

// The adapter page's "where to mount" sample, run as it stands: helmet first, covgate before
// the app's login and body parser, then the app's own routes. A Chromium page on another site
// shows its badge.
const docs = fileURLToPath(new URL('../', import.meta.url));
const snippets = join(docs, 'snippets');
const repo = join(docs, '..');
const screenshotsDir = join(docs, 'screenshots');
const APP_TOKEN = 'host-app-token-0123456789abcdef';

const built = ['core', 'express', 'node-bridge'].every((name) =>
  existsSync(join(repo, 'packages', name, 'dist', 'index.js')),
);
if (!built) {
  console.warn('[covgate] Express host-app sample SKIPPED: run `pnpm build` first');
}
const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable && process.env.COVGATE_REQUIRE_BROWSER !== '1') {
  console.warn(`[covgate] badge-in-Chromium check SKIPPED: no Chromium at ${CHROMIUM}`);
}

async function listenOn(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

describe.skipIf(!built && process.env.CI !== '1')('Express host-app sample', () => {
  let app: Started | undefined;
  let workDir: string;
  /** Where covgate is mounted, `http://127.0.0.1:<port>/coverage`. */
  let covgateUrl: string;
  let origin: string;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'covgate-host-app-'));
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: '0',
      SESSION_SECRET: 'host-app-session-secret-0123456789abcdef0123456789',
      SERVICE_TOKEN: 'host-app-service-token-0123456789abcdef0123456789',
      APP_TOKEN,
    };
    // Run from docs/ so the sample resolves the packages as an application would.
    app = await startListening([join(snippets, 'express-host-app.mjs')], { cwd: docs, env });
    covgateUrl = app.url;
    origin = new URL(app.url).origin;
    // From the empty store to a run, through covgate mounted before the app's login and parser.
    const path = await run('bash', [join(snippets, 'empty-store-to-list.sh')], {
      cwd: workDir,
      env: { ...env, COVGATE_URL: covgateUrl },
    });
    expect(path.stderr).toBe('');
    expect(path.code).toBe(0);
    expect(JSON.parse(path.stdout)).toMatchObject({ total: 1 });
  }, 60_000);

  afterAll(async () => {
    await stop(app);
    await rm(workDir, { recursive: true, force: true });
  });

  it('is the sample the Express adapter page includes', async () => {
    const page = await readFile(join(docs, 'adapters', 'express.md'), 'utf8');
    expect(page).toContain('<<< @/snippets/express-host-app.mjs{js}');
  });

  it('lets covgate authenticate its own routes: the app login does not stand in front of them', async () => {
    const health = await fetch(`${covgateUrl}/health`);
    expect(health.status).toBe(200);
    const refused = await fetch(`${covgateUrl}/v1/tokens`);
    expect(refused.status).toBe(401);
    // covgate's own answer, not the app's.
    expect(await refused.json()).toEqual({ error: 'invalid token' });
  });

  it("guards the app's own routes with the app's login, and parses their JSON", async () => {
    const anonymous = await fetch(`${origin}/api/me`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: 'log in to the app first' });
    const note = await fetch(`${origin}/api/notes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${APP_TOKEN}`, 'content-type': 'application/json' },
      body: '{"text":"hello"}',
    });
    expect(note.status).toBe(201);
    expect(await note.json()).toEqual({ note: { text: 'hello' } });
  });

  it('serves the badge with helmet headers and Cross-Origin-Resource-Policy: cross-origin', async () => {
    const badge = await fetch(`${covgateUrl}/v1/badge/acme/web`);
    expect(badge.status).toBe(200);
    expect(badge.headers.get('x-content-type-options')).toBe('nosniff'); // helmet ran first
    expect(badge.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(await badge.text()).toContain('aria-label="coverage: 84%"');
    // The app's own answers keep helmet's policy.
    const own = await fetch(`${origin}/api/me`);
    expect(own.headers.get('cross-origin-resource-policy')).toBe('same-origin');
  });

  describe.skipIf(!browserAvailable && process.env.COVGATE_REQUIRE_BROWSER !== '1')(
    'in Chromium, on a page of another site',
    () => {
      let browser: Browser;
      let page: Server;
      let control: Server;
      let pageOrigin: string;
      let controlOrigin: string;

      beforeAll(async () => {
        // Control: the same SVG from a helmet app's own route, under helmet's same-origin.
        const svg = await (await fetch(`${covgateUrl}/v1/badge/acme/web`)).text();
        const controlApp = express();
        controlApp.use(helmet());
        controlApp.get('/badge.svg', (_req, res) => {
          res.type('image/svg+xml').send(svg);
        });
        control = createServer(controlApp);
        controlOrigin = `http://127.0.0.1:${await listenOn(control, '127.0.0.1')}`;
        // The embedding page is on `localhost`, another site than `127.0.0.1`.
        page = createServer((_req, res) => {
          res.setHeader('content-type', 'text/html; charset=utf-8');
          res.end(`<!doctype html><title>README</title><body style="font-family:sans-serif">
            <h1>acme/web</h1>
            <p>covgate: <img id="covgate" alt="coverage" src="${covgateUrl}/v1/badge/acme/web"></p>
            <p>control: <img id="control" alt="control" src="${controlOrigin}/badge.svg"></p>
          </body>`);
        });
        pageOrigin = `http://localhost:${await listenOn(page, '127.0.0.1')}`;
        await mkdir(screenshotsDir, { recursive: true });
        browser = await launchChromium();
      }, 60_000);

      afterAll(async () => {
        await browser?.close();
        await new Promise((resolve) => page?.close(resolve));
        await new Promise((resolve) => control?.close(resolve));
      });

      it('shows the badge; the same SVG under same-origin stays blocked', async () => {
        const tab = await browser.newPage({ viewport: { width: 480, height: 200 } });
        const failed: string[] = [];
        tab.on('requestfailed', (request) => {
          failed.push(`${new URL(request.url()).pathname}: ${request.failure()?.errorText}`);
        });
        await tab.goto(`${pageOrigin}/`, { waitUntil: 'load' });
        const width = (id: string) =>
          tab.locator(`#${id}`).evaluate((img: HTMLImageElement) => img.naturalWidth);
        expect(await width('covgate')).toBeGreaterThan(50);
        expect(await width('control')).toBe(0);
        expect(failed).toEqual([expect.stringMatching(/^\/badge\.svg: net::ERR_BLOCKED_BY_/)]);
        await tab.screenshot({ path: join(screenshotsDir, 'badge-cross-site.png') });
        await tab.close();
      });
    },
  );
});
