import { LinkChecker } from 'linkinator';
const distDir = '/work/wt-flaky/docs/.vitepress/dist/';
const t0 = performance.now();
const checker = new LinkChecker();
let retries = 0;
checker.on('retry', () => retries++);
const result = await checker.check({
  path: distDir, recurse: true, checkFragments: true,
  linksToSkip: ['^(?!http://localhost)[a-z]+:'], concurrency: 10,
  retryErrors: true, retryErrorsCount: 3, retryErrorsJitter: 100,
});
const broken = result.links.filter((l) => l.state === 'BROKEN');
console.log(Math.round(performance.now() - t0), 'ms', result.links.length, 'links', retries, 'retries');
for (const b of broken) console.log(b.status, b.url, JSON.stringify(b.failureDetails)?.slice(0, 600));
