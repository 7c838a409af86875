// What the dashboard's browser tests share: Debian's Chromium, the built app and server they
// need (skipped without them unless CI requires them), viewports, and a page watched for
// Content-Security-Policy violations and script errors.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { isServerBuilt } from '@covgate/test-support/built-server';
import { CHROMIUM, launchChromium as launchDebianChromium } from '@covgate/test-support/chromium';
import type { Browser, Page } from 'playwright-core';

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };
export const json = { 'content-type': 'application/json' };

/** The development organisation's sign-in link the reference server prints at start. */
export const BANNER_LINK =
  /sign in to the development organisation "dev" \(one use, 15 minutes\): (http:\/\/\S+)/;

/** Where the screenshots a person looks at are written (`packages/dashboard/screenshots/`). */
export const screenshotsDir = fileURLToPath(new URL('../../screenshots/', import.meta.url));

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
export async function launchChromium(): Promise<Browser> {
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
