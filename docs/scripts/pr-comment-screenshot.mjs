// Renders the pull request comment covgate's outbox posts (its real Markdown, from
// packages/core/src/outbox/run-feedback.ts) with the docs site's Markdown renderer inside a
// GitHub-like comment frame, and screenshots it with Chromium for the "Pull request feedback"
// guide: `node docs/scripts/pr-comment-screenshot.mjs` writes
// docs/public/images/pull-request-comment.png.
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createMarkdownRenderer } from 'vitepress';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const source = process.env.COMMENT_SOURCE ?? join(repo, 'packages/core/src/outbox/run-feedback.ts');
const output = join(repo, 'docs/public/images/pull-request-comment.png');

// esbuild (a dependency of the workspace's build tools) turns the TypeScript module into one
// importable file, so the screenshot shows exactly what the outbox sends.
const esbuild = createRequire(join(repo, 'packages/client/package.json'))('esbuild');
const bundled = await esbuild.build({
  entryPoints: [source],
  bundle: true,
  format: 'esm',
  platform: 'node',
  write: false,
});
const feedback = await import(
  `data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`
);

/** A pull request's run that passed, with a patch: what most comments look like. */
const run = {
  id: 'exe_01jdx4q7v2m8k3n5p6r7s8t9vw',
  orgId: 'org_01jdx3',
  repo: 'web',
  branch: 'feature/checkout',
  outcome: 'pass',
  delta: '+0.25',
  coverage: 84.13,
  commit: '4f9c2d1e8b7a6c5d4e3f2a1b0c9d8e7f6a5b4c3d',
  createdAt: new Date('2026-11-27T07:30:00Z'),
  baseBranch: 'main',
  baselineId: 'exe_01jdx2',
  baselineCoverage: 83.88,
  baselineCommit: '9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d',
  baselineCreatedAt: new Date('2026-11-26T16:00:00Z'),
  baselineSelection: 'merge-base',
  component: null,
  pullRequest: 42,
  baseCommit: '9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d',
  patchCovered: 21,
  patchCoverable: 23,
  patchTarget: 80,
  patchTargetSource: 'repository',
  decidedBy: 'delta',
  fileCount: 41,
};
/** What the worker reads from both runs' file lists when it sends the comment. */
const change = (path, covered, coverable, baselineCovered, baselineCoverable) => {
  const percent = Math.trunc((covered / coverable) * 10_000) / 100;
  const baselinePercent = Math.trunc((baselineCovered / baselineCoverable) * 10_000) / 100;
  return {
    path,
    covered,
    coverable,
    percent,
    baseline_covered: baselineCovered,
    baseline_coverable: baselineCoverable,
    baseline_percent: baselinePercent,
    change: Math.round((percent - baselinePercent) * 100) / 100,
  };
};
const changes = {
  baseline_id: run.baselineId,
  total: 3,
  truncated: false,
  files: [
    change('src/cart/discount.ts', 31, 40, 36, 40),
    change('src/cart/total.ts', 52, 60, 55, 60),
    change('src/api/checkout.ts', 88, 90, 80, 90),
  ],
};
const body = feedback.withFilesLost(
  feedback.commentBody(run, `https://covgate.example.com/dashboard/repos/web/runs/${run.id}`),
  changes,
);
const markdown = await createMarkdownRenderer(join(repo, 'docs'));
const html = `<!doctype html><html><head><meta charset="utf-8"><style>
  body { margin: 0; padding: 24px; background: #fff; font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; color: #1f2328; }
  .comment { width: 760px; border: 1px solid #d1d9e0; border-radius: 6px; }
  .head { display: flex; gap: 8px; align-items: center; padding: 8px 16px; background: #f6f8fa; border-bottom: 1px solid #d1d9e0; border-radius: 6px 6px 0 0; color: #59636e; }
  .head strong { color: #1f2328; }
  .avatar { width: 20px; height: 20px; border-radius: 4px; background: #1a7f37; color: #fff; font-weight: 700; font-size: 12px; display: grid; place-items: center; }
  .body { padding: 16px; }
  .body h3 { margin: 0 0 12px; font-size: 1.25em; }
  .body table { border-collapse: collapse; margin: 0 0 12px; }
  .body th, .body td { border: 1px solid #d1d9e0; padding: 6px 13px; }
  .body tr:nth-child(2n) { background: #f6f8fa; }
  .body code { background: #eff1f3; border-radius: 6px; padding: .2em .4em; font-size: 85%; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
  .body a { color: #0969da; text-decoration: none; }
  .body p { margin: 0; }
</style></head><body><div class="comment">
  <div class="head"><span class="avatar">a</span><strong>acme-ci-bot</strong> commented · edited</div>
  <div class="body">${markdown.render(body)}</div>
</div></body></html>`;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  const page = await browser.newPage({ viewport: { width: 820, height: 600 } });
  await page.setContent(html);
  await mkdir(dirname(output), { recursive: true });
  await page.locator('.comment').screenshot({ path: output });
  console.log(`wrote ${output}`);
} finally {
  await browser.close();
}
