// `pnpm docs:build`: generates the reference pages, builds the site with VitePress (which fails
// on a dead internal link), then checks every internal link and anchor of the built HTML.
import { fileURLToPath } from 'node:url';
import { build } from 'vitepress';
import { checkBuiltSite } from './check-links.mjs';
import { generateReference } from './generate-reference.mjs';
import { writeReleaseNotes } from './release-notes.mjs';

const docsDir = fileURLToPath(new URL('..', import.meta.url));
const started = performance.now();

await writeReleaseNotes();
await generateReference();
try {
  await build(docsDir);
} catch (error) {
  console.error(`docs: vitepress build failed: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}
const report = await checkBuiltSite();
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (report.broken.length > 0) {
  console.error(`docs: ${report.broken.length} broken internal link(s) or anchor(s):`);
  for (const link of report.broken) {
    const why =
      link.status === 0 ? `no answer: ${link.reason || 'unknown'}` : `status ${link.status}`;
    console.error(`  ${link.url} (on ${link.parent}): ${why}`);
  }
  process.exit(1);
}
console.log(
  `docs: built ${report.pages} pages in ${seconds} s; ${report.checked} internal links and anchors checked, none broken`,
);
