import type { Execution } from '@covgate/client';
import { describe, expect, it } from 'vitest';
import { chartColumns } from '../app/src/chart-data.js';
import {
  badgeMarkdown,
  formatAxisTime,
  formatCountdown,
  githubActionsSnippet,
  pickBaseBranch,
  runCommand,
  shellQuote,
} from '../app/src/format.js';
import { POLL_INTERVAL_MS, POLL_TIMEOUT_MS, pollUntil } from '../app/src/onboarding-poll.js';
import { parseRoute, pathOf } from '../app/src/router.js';

function run(id: number, branch: string, outcome: Execution['outcome'], at: string): Execution {
  return {
    id: `exe_${String(id).padStart(26, '0')}`,
    repo: 'web',
    branch,
    outcome,
    delta: '0.00',
    coverage: 80 + id,
    commit: null,
    created_at: at,
  };
}

describe('dashboard rules', () => {
  it('counts down in minutes and seconds, rounding up, never below 0:00', () => {
    expect(formatCountdown(POLL_TIMEOUT_MS)).toBe('10:00');
    expect(formatCountdown(545_000)).toBe('9:05');
    expect(formatCountdown(544_001)).toBe('9:05');
    expect(formatCountdown(0)).toBe('0:00');
    expect(formatCountdown(-3_000)).toBe('0:00');
  });

  it('takes main, then master, then the busiest branch as the base branch', () => {
    expect(pickBaseBranch([{ branch: 'dev' }, { branch: 'main' }, { branch: 'dev' }])).toBe('main');
    expect(pickBaseBranch([{ branch: 'dev' }, { branch: 'master' }])).toBe('master');
    expect(pickBaseBranch([{ branch: 'a' }, { branch: 'b' }, { branch: 'b' }])).toBe('b');
    expect(pickBaseBranch([])).toBeNull();
  });

  it('writes the badge Markdown with encoded names', () => {
    const badge = 'https://cov.example.com/v1/badge/acme/web%20app';
    expect(badgeMarkdown(badge, 'https://cov.example.com/dashboard/repos/web%20app')).toBe(
      '[![coverage](https://cov.example.com/v1/badge/acme/web%20app)](https://cov.example.com/dashboard/repos/web%20app)',
    );
  });

  it('quotes shell words only when needed', () => {
    expect(shellQuote('web')).toBe('web');
    expect(shellQuote('https://x.example:8080/a')).toBe('https://x.example:8080/a');
    expect(shellQuote("it's mine")).toBe(`'it'\\''s mine'`);
  });

  it('gives the exact covgate run command and GitHub Actions step', () => {
    expect(runCommand({ apiUrl: 'http://localhost:8080', repo: 'web', secret: 'cvg_1' })).toBe(
      'export COVGATE_URL=http://localhost:8080\nexport COVGATE_TOKEN=cvg_1\nnpx --yes @covgate/cli run --repo web -- npm test',
    );
    expect(githubActionsSnippet({ apiUrl: 'https://cov.example.com', repo: 'web' })).toBe(
      [
        '- name: Coverage gate',
        '  run: npx --yes @covgate/cli run --repo web -- npm test',
        '  env:',
        '    COVGATE_URL: https://cov.example.com',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub Actions expression syntax
        '    COVGATE_TOKEN: ${{ secrets.COVGATE_TOKEN }}',
      ].join('\n'),
    );
  });

  it('puts each run in exactly one outcome series, oldest first, base branch also on the line', () => {
    const newestFirst = [
      run(3, 'feature/a', 'fail', '2026-11-22T10:00:05Z'),
      run(2, 'main', 'warn', '2026-11-22T10:00:05Z'),
      run(1, 'main', 'pass', '2026-11-22T10:00:00Z'),
    ];
    const { data, executions } = chartColumns(newestFirst, 'main');
    expect(executions.map((e) => e.id)).toEqual([1, 2, 3].map((n) => run(n, '', 'pass', '').id));
    expect(data).toEqual([
      [0, 1, 2],
      [81, 82, null],
      [81, null, null],
      [null, 82, null],
      [null, null, null],
      [null, null, null],
      [null, null, null],
      [null, null, 83],
    ]);
  });

  it('labels the chart axis with the run time in UTC, without the year', () => {
    expect(formatAxisTime('2026-11-22T09:05:59Z')).toBe('11-22 09:05');
  });

  it('routes paths under the base path and back', () => {
    expect(parseRoute('/')).toEqual({ page: 'repos' });
    expect(parseRoute('/tokens')).toEqual({ page: 'tokens' });
    expect(parseRoute('/onboarding')).toEqual({ page: 'onboarding' });
    expect(parseRoute('/repos/a%2Fb')).toEqual({ page: 'repo', repo: 'a/b' });
    expect(parseRoute('/repos/%E0%A4%A')).toEqual({ page: 'not-found' });
    expect(parseRoute('/nope')).toEqual({ page: 'not-found' });
    expect(pathOf({ page: 'repo', repo: 'a/b' })).toBe('/repos/a%2Fb');
  });
});

describe('onboarding poll', () => {
  function clock() {
    let now = 0;
    const timers: { at: number; callback: () => void }[] = [];
    return {
      now: () => now,
      setTimer: (callback: () => void, ms: number) => {
        const timer = { at: now + ms, callback };
        timers.push(timer);
        return timer;
      },
      clearTimer: (timer: unknown) => {
        timers.splice(timers.indexOf(timer as (typeof timers)[number]), 1);
      },
      async advance() {
        const next = timers.shift();
        if (!next) return false;
        now = next.at;
        next.callback();
        await new Promise((resolve) => setTimeout(resolve, 0));
        return true;
      },
    };
  }

  it('checks at once and every 5 s until a run arrives', async () => {
    const time = clock();
    const checks: number[] = [];
    const found = pollUntil({
      ...time,
      signal: new AbortController().signal,
      onError: () => {},
      check: async () => {
        checks.push(time.now());
        return checks.length === 3 ? 'first run' : null;
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    while (await time.advance()) {}
    await expect(found).resolves.toBe('first run');
    expect(checks).toEqual([0, POLL_INTERVAL_MS, 2 * POLL_INTERVAL_MS]);
  });

  it('gives up after 10 minutes, checking a last time at the deadline, and goes on after errors', async () => {
    const time = clock();
    const checks: number[] = [];
    const errors: unknown[] = [];
    const found = pollUntil({
      ...time,
      signal: new AbortController().signal,
      onError: (error) => errors.push(error),
      check: async () => {
        checks.push(time.now());
        if (checks.length === 2) throw new Error('503');
        return null;
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    while (await time.advance()) {}
    await expect(found).resolves.toBeNull();
    expect(checks).toHaveLength(POLL_TIMEOUT_MS / POLL_INTERVAL_MS + 1);
    expect(checks.at(-1)).toBe(POLL_TIMEOUT_MS);
    expect(errors).toEqual([new Error('503')]);
  });

  it('stops when aborted', async () => {
    const time = clock();
    const controller = new AbortController();
    let checks = 0;
    const found = pollUntil({
      ...time,
      signal: controller.signal,
      onError: () => {},
      check: async () => {
        checks++;
        return null;
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    controller.abort();
    await expect(found).resolves.toBeNull();
    while (await time.advance()) {}
    expect(checks).toBe(1);
  });
});
