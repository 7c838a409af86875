// What the dashboard's browser tests share: the built app and server they need (skipped
// without them unless CI requires them), a suite's own server and Debian's Chromium started
// and stopped around it, viewports, pages watched for Content-Security-Policy violations and
// script errors, their screenshots, the sign-in with the server's banner link, and runs
// recorded as CI records them.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import {
  type BuiltServer,
  freePort,
  isServerBuilt,
  startBuiltServer,
} from '@covgate/test-support/built-server';
import { CHROMIUM, launchChromium as launchDebianChromium } from '@covgate/test-support/chromium';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };
export const json = { 'content-type': 'application/json' };

/** The development organisation's sign-in link the reference server prints at start. */
const BANNER_LINK =
  /sign in to the development organisation "dev" \(one use, 15 minutes\): (http:\/\/\S+)/;

/** Where the screenshots a person looks at are written (`packages/dashboard/screenshots/`). */
const screenshotsDir = fileURLToPath(new URL('../../screenshots/', import.meta.url));

const appBuilt = existsSync(fileURLToPath(new URL('../../dist/app/index.html', import.meta.url)));
const browserAvailable = existsSync(CHROMIUM);
const browserRequired = process.env.COVGATE_REQUIRE_BROWSER === '1';

/** Whether the suite cannot run here: nothing built outside CI, or no Chromium unless required. */
export function skipBrowserSuite(): boolean {
  const built = appBuilt && isServerBuilt();
  if (!built && process.env.CI !== '1') {
    console.warn(
      '[covgate] dashboard browser test SKIPPED: run `pnpm build` first (`pnpm test` does)',
    );
    return true;
  }
  if (!browserAvailable && !browserRequired) {
    console.warn(
      `[covgate] dashboard browser test SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium)`,
    );
    return true;
  }
  return false;
}

/** Debian's Chromium, headless, with the screenshots folder made. */
async function launchChromium(): Promise<Browser> {
  await mkdir(screenshotsDir, { recursive: true });
  return launchDebianChromium();
}

/** What a page reported that a test fails on. */
export interface PageProblems {
  cspViolations: string[];
  pageErrors: string[];
}

/** Collects the page's Content-Security-Policy violations and uncaught script errors. */
export function watchPage(page: Page, problems: PageProblems): void {
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) {
      problems.cspViolations.push(message.text());
    }
  });
  page.on('pageerror', (error) => problems.pageErrors.push(error.message));
}

/** A page of its own (its own cookies) at the desktop size, watched for `problems`. */
async function openPage(
  browser: Browser,
  problems: PageProblems,
  options: {
    /** The origin where the page may read and write the clipboard (copy buttons). */
    clipboardAt?: string;
  } = {},
): Promise<Page> {
  const context = await browser.newContext({ viewport: DESKTOP });
  if (options.clipboardAt !== undefined) {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: options.clipboardAt,
    });
  }
  const page = await context.newPage();
  watchPage(page, problems);
  return page;
}

/** The link of the main navigation with this name. */
export function navLink(page: Page, name: string): Locator {
  return page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name });
}

/**
 * Writes `<name>-desktop.png` and `<name>-phone.png` for a person to look at, then gives the
 * page back its size: the whole page, or with `scrollTo` the window scrolled to that part.
 * `onPhone` runs at the phone size before its screenshot (a check of the phone layout).
 */
export async function shoot(
  page: Page,
  name: string,
  options: { scrollTo?: Locator; onPhone?: () => Promise<void> } = {},
): Promise<void> {
  const viewport = page.viewportSize() ?? DESKTOP;
  const screenshot = async (size: 'desktop' | 'phone') => {
    await options.scrollTo?.scrollIntoViewIfNeeded();
    await page.screenshot({
      path: join(screenshotsDir, `${name}-${size}.png`),
      fullPage: options.scrollTo === undefined,
    });
  };
  await screenshot('desktop');
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(150);
  await options.onPhone?.();
  await screenshot('phone');
  await page.setViewportSize(viewport);
}

/** The built reference server of one suite, with a data folder of its own. */
export interface SuiteServer extends BuiltServer {
  port: number;
  /** `http://localhost:<port>`, where the dashboard lives under `/dashboard/`. */
  origin: string;
  dataDir: string;
  /** Kills the server and removes its data folder. */
  close(): Promise<void>;
}

/** What a suite's server gets besides PATH, PORT and COVGATE_DATA_DIR (a function of the port where a setting names it). */
export type SuiteEnv = NodeJS.ProcessEnv | ((port: number) => NodeJS.ProcessEnv);

/**
 * Starts the built server on a free port with a new data folder (`covgate-dashboard-<name>-…`
 * in the temporary folder) and `env`.
 */
export async function startSuiteServer(name: string, env: SuiteEnv = {}): Promise<SuiteServer> {
  const dataDir = await mkdtemp(join(tmpdir(), `covgate-dashboard-${name}-`));
  const removeDataDir = () => rm(dataDir, { recursive: true, force: true });
  try {
    const port = await freePort();
    const server = await startBuiltServer({
      PATH: process.env.PATH,
      PORT: String(port),
      COVGATE_DATA_DIR: dataDir,
      ...(typeof env === 'function' ? env(port) : env),
    });
    return {
      ...server,
      port,
      origin: `http://localhost:${port}`,
      dataDir,
      close: async () => {
        await server.kill();
        await removeDataDir();
      },
    };
  } catch (error) {
    await removeDataDir();
    throw error;
  }
}

async function signInWithBannerLink(page: Page, server: SuiteServer): Promise<string> {
  const link = (await server.waitForLine(BANNER_LINK, 20_000))[1] as string;
  await page.goto(link);
  await page.waitForURL(`${server.origin}/dashboard/`);
  return link;
}

function postRun(
  origin: string,
  token: string,
  body: object,
  options: { idempotencyKey?: string; gzip?: boolean } = {},
): Promise<Response> {
  const text = JSON.stringify(body);
  return fetch(`${origin}/v1/executions`, {
    method: 'POST',
    headers: {
      ...json,
      authorization: `Bearer ${token}`,
      'idempotency-key': options.idempotencyKey ?? randomUUID(),
      ...(options.gzip ? { 'content-encoding': 'gzip' } : {}),
    },
    body: options.gzip ? gzipSync(text) : text,
  });
}

/** A browser suite's built server and Chromium, and what its pages reported (see {@link browserSuite}). */
export interface BrowserSuite {
  readonly server: SuiteServer;
  readonly browser: Browser;
  /** The server's `http://localhost:<port>`. */
  readonly origin: string;
  readonly problems: PageProblems;
  /** A page of its own, watched for the suite's problems (see {@link openPage}). */
  newPage(options?: { clipboardAt?: string }): Promise<Page>;
  /**
   * Signs `page` in to the development organisation with the one-use link the server printed
   * at its first start, and waits for the dashboard; returns the link.
   */
  signInWithBannerLink(page: Page): Promise<string>;
  /**
   * Records a run as a CI job does: `POST /v1/executions` with the token and an idempotency
   * key (a new one unless given), the JSON body gzipped with `gzip`.
   */
  postRun(
    token: string,
    body: object,
    options?: { idempotencyKey?: string; gzip?: boolean },
  ): Promise<Response>;
}

/**
 * A suite's built server ({@link startSuiteServer}) and Chromium: started by a `beforeAll` and
 * stopped by an `afterAll` that this registers (hooks registered earlier, such as a fake
 * GitHub the `env` names, run before it starts and after it stops). Its server and browser
 * are there from that `beforeAll` on.
 */
export function browserSuite(name: string, env: SuiteEnv = {}): BrowserSuite {
  let server: SuiteServer | undefined;
  let browser: Browser | undefined;
  const problems: PageProblems = { cspViolations: [], pageErrors: [] };
  beforeAll(async () => {
    server = await startSuiteServer(name, env);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error(`the browser suite "${name}" has not started`);
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get browser() {
      return started(browser);
    },
    get origin() {
      return started(server).origin;
    },
    problems,
    newPage: (options) => openPage(started(browser), problems, options),
    signInWithBannerLink: (page) => signInWithBannerLink(page, started(server)),
    postRun: (token, body, options) => postRun(started(server).origin, token, body, options),
  };
}
