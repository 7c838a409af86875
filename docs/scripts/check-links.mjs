// Checks every internal link and anchor of the built site with linkinator (external links are
// skipped: CI has no network, and their health is not ours to gate on).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LinkChecker } from 'linkinator';

const distDir = fileURLToPath(new URL('../.vitepress/dist/', import.meta.url));

async function countPages(dir) {
  let pages = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) pages += await countPages(join(dir, entry.name));
    else if (entry.name.endsWith('.html') && entry.name !== '404.html') pages += 1;
  }
  return pages;
}

/** Crawls the built site from its home page; resolves to the broken links and the page count. */
export async function checkBuiltSite() {
  const checker = new LinkChecker();
  const result = await checker.check({
    path: distDir,
    recurse: true,
    checkFragments: true,
    linksToSkip: ['^(?!http://localhost)[a-z]+:'],
    concurrency: 10,
    // A local read can fail transiently under load (status 0); a real dead link fails every time.
    retryErrors: true,
    retryErrorsCount: 3,
    retryErrorsJitter: 100,
  });
  const broken = result.links
    .filter((link) => link.state === 'BROKEN')
    .map((link) => ({ url: link.url, parent: link.parent }));
  const checked = result.links.filter((link) => link.state !== 'SKIPPED').length;
  return { broken, checked, pages: await countPages(distDir) };
}
