import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`): no test downloads a browser. */
export const CHROMIUM = '/usr/bin/chromium';

/** Debian's Chromium, headless, quiet (no network of its own, no first-run work). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
