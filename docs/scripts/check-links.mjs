// Checks every internal link and anchor of the built site with linkinator (external links are
// skipped: CI has no network, and their health is not ours to gate on).
import { existsSync } from 'node:fs';
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

/**
 * A `408` is linkinator's own server giving up under load (it was seen on `.lean.js` chunks
 * that exist), not a dead link: such a link counts as good when its file is in the build.
 */
function timedOutOnAFileThatExists(link) {
  if (link.status !== 408) return false;
  const path = link.url.startsWith('http') ? new URL(link.url).pathname : link.url;
  const file = path.startsWith(distDir) ? path : join(distDir, decodeURIComponent(path));
  return existsSync(file);
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
    // A request to linkinator's local server can fail without a status (status 0) on a loaded
    // machine: the server shares this process's event loop with the crawl, and one run saw a
    // `.lean.js` chunk that exists fail four times in a row. Such failures are retried with a
    // doubling pause (1 s to 32 s); a dead link or anchor answers 404 (or misses its fragment)
    // and is never retried, so it still fails the build.
    retryErrors: true,
    retryErrorsCount: 6,
    retryErrorsJitter: 100,
  });
  const broken = result.links
    .filter((link) => link.state === 'BROKEN' && !timedOutOnAFileThatExists(link))
    .map((link) => ({
      url: link.url,
      parent: link.parent,
      status: link.status ?? 0,
      reason: String(
        link.failureDetails?.map((detail) => detail?.message ?? detail?.cause?.message ?? '')[0] ??
          '',
      ),
    }));
  const checked = result.links.filter((link) => link.state !== 'SKIPPED').length;
  return { broken, checked, pages: await countPages(distDir) };
}
