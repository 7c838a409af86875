import { CovgateApiError, type Execution, type Repository } from '@covgate/client';
import { describe, expect, it } from 'vitest';
import { describeError } from '../app/src/api.js';
import { chartColumns, chartXRange, chartYRange, runsOf } from '../app/src/chart-data.js';
import {
  badgeMarkdown,
  formatAxisTime,
  formatComparison,
  formatCountdown,
  formatCoverage,
  isLoopbackUrl,
  pickBaseBranch,
  shellQuote,
  VERDICT_LABEL,
  verdictOf,
} from '../app/src/format.js';
import { inviteNotice, inviteOutcomeIn, searchWithoutInvite } from '../app/src/invite-notice.js';
import { POLL_INTERVAL_MS, POLL_TIMEOUT_MS, pollUntil } from '../app/src/onboarding-poll.js';
import { rateLimitWait } from '../app/src/rate-limit.js';
import { arrangeRepos, DEFAULT_REPO_SORT, nextSort, shownRun } from '../app/src/repo-list.js';
import {
  arrangeInvites,
  canManageMembers,
  canManageTokens,
  isLastOwner,
  memberName,
} from '../app/src/roles.js';
import { parseRoute, pathOf } from '../app/src/router.js';

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

  it('puts each run of the series in exactly one outcome series, oldest first, base branch also on the line', () => {
    const runs = runsOf([
      ['2026-11-22T10:00:00Z', 81, 'pass', 'main', '0.00', 80.5],
      ['2026-11-22T10:00:05Z', 82, 'warn', 'main', '-0.60', 82.6],
      ['2026-11-22T10:00:05Z', 83, 'fail', 'feature/a', '-1.20', 84.2],
    ]);
    expect(runs[1]).toEqual({
      createdAt: '2026-11-22T10:00:05Z',
      coverage: 82,
      outcome: 'warn',
      branch: 'main',
      delta: '-0.60',
      baseline: 82.6,
    });
    const { data } = chartColumns(runs, 'main');
    expect(data).toEqual([
      [0, 1, 2],
      [81, 82, null],
      [81, null, null],
      [null, 82, null],
      [null, null, null],
      [null, null, null],
      [null, null, null],
      [null, null, null],
      [null, null, 83],
      [null, null, null],
    ]);
  });

  it('pads the x range by half a run each side: a single run sits mid-plot, the last label fits', () => {
    expect(chartXRange(1)).toEqual([-0.5, 0.5]);
    expect(chartXRange(3)).toEqual([-0.5, 2.5]);
  });

  it('keeps every point inside the y range, 0 % and 100 % included', () => {
    expect(chartYRange(81.2, 84.9)).toEqual([79, 87]);
    // A 100 % run is drawn inside the plot, not cut in half on its top edge.
    expect(chartYRange(100, 100)).toEqual([98, 102]);
    expect(chartYRange(0, 0)).toEqual([-2, 2]);
  });

  it('puts a run compared with nothing in the no-baseline series, not the pass one', () => {
    const runs = runsOf([
      ['2026-11-22T10:00:00Z', 81, 'pass', 'main', '0.00', null],
      ['2026-11-22T10:00:05Z', 82, 'pass', 'feature/a', '0.00', null],
      ['2026-11-22T10:00:06Z', 83, 'pass', 'main', '+2.00', 81],
    ]);
    expect(runs.map((run) => run.baseline)).toEqual([null, null, 81]);
    expect(chartColumns(runs, 'main').data).toEqual([
      [0, 1, 2],
      [81, null, 83],
      [null, null, 83],
      [null, null, null],
      [null, null, null],
      [81, null, null],
      [null, null, null],
      [null, null, null],
      [null, null, null],
      [null, 82, null],
    ]);
  });

  it('shows a run without a baseline as such, never as a pass of 0.00 points', () => {
    const first = { outcome: 'pass' as const, delta: '0.00', baseline: null };
    expect([verdictOf(first), VERDICT_LABEL[verdictOf(first)], formatComparison(first)]).toEqual([
      'none',
      'No baseline',
      'nothing to compare',
    ]);
    const compared = {
      outcome: 'warn' as const,
      delta: '-0.60',
      baseline: {
        id: 'exe_01jd0000000000000000000000',
        coverage: 81,
        branch: 'main',
        commit: null,
        created_at: '2026-11-22T10:00:00Z',
      },
    };
    expect([verdictOf(compared), formatComparison(compared)]).toEqual(['warn', '-0.60 pts']);
    // A record from before baselines were kept (no `baseline`): its outcome, as it was judged.
    const older = { outcome: 'pass' as const, delta: '0.00' };
    expect([verdictOf(older), formatComparison(older)]).toEqual(['pass', '0.00 pts']);
    const [olderPoint] = runsOf([['2026-11-22T10:00:00Z', 81, 'pass', 'main', '0.00']]);
    expect(olderPoint).toEqual({
      createdAt: '2026-11-22T10:00:00Z',
      coverage: 81,
      outcome: 'pass',
      branch: 'main',
      delta: '0.00',
    });
    expect(olderPoint && verdictOf(olderPoint)).toBe('pass');
  });

  it('shows coverage truncated to two decimals, like the API and the badge', () => {
    expect(formatCoverage(99.936)).toBe('99.93%');
    expect(formatCoverage(79.999)).toBe('79.99%');
    expect(formatCoverage(84.1)).toBe('84.10%');
    expect(formatCoverage(100)).toBe('100.00%');
    expect(formatCoverage(0.29)).toBe('0.29%');
  });

  it('labels the chart axis with the run time in UTC, without the year', () => {
    expect(formatAxisTime('2026-11-22T09:05:59Z')).toBe('11-22 09:05');
  });

  it('calls a URL loopback when its host is this machine', () => {
    for (const url of [
      'http://localhost:8080',
      'http://LOCALHOST',
      'http://app.localhost:3000',
      'http://127.0.0.1:8080',
      'http://127.1.2.3',
      'http://[::1]:8080',
      'http://0.0.0.0:8080',
    ]) {
      expect(isLoopbackUrl(url), url).toBe(true);
    }
    for (const url of [
      'https://cov.example.com',
      'http://192.168.1.5:8080',
      'http://localhost.example.com',
      'http://127.example.com',
      'not a url',
    ]) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
  });

  it('says which origin a CSRF refusal names, and how long a 429 asks to wait', () => {
    const error = (status: number, message: string, retryAfterSeconds: number | null = null) =>
      new CovgateApiError({ status, error: message, requestId: 'req-1', retryAfterSeconds });
    expect(
      describeError(
        error(403, 'origin http://127.0.0.1:8080 is not allowed: add it to ALLOWED_ORIGINS'),
      ),
    ).toBe(
      'The server refused this change from this address: origin http://127.0.0.1:8080 is not allowed: add it to ALLOWED_ORIGINS (request req-1).',
    );
    expect(describeError(error(403, 'forbidden'))).toBe(
      'The server answered 403: forbidden (request req-1).',
    );
    expect(describeError(error(429, 'rate limit exceeded', 42))).toBe(
      'Too many requests: the server asked to wait 42 seconds.',
    );
    expect(rateLimitWait(error(429, 'rate limit exceeded', 42))).toBe(42);
    expect(rateLimitWait(error(429, 'rate limit exceeded'))).toBe(60);
    expect(rateLimitWait(error(429, 'token limit reached'))).toBeNull();
    expect(rateLimitWait(error(403, 'forbidden'))).toBeNull();
  });

  it("shows a repository's base branch run, searches names in any case and sorts by name, coverage or activity", () => {
    const record = (branch: string, coverage: number, at: string, id: string): Execution => ({
      id,
      repo: 'r',
      branch,
      outcome: 'pass',
      delta: '0.00',
      coverage,
      commit: null,
      created_at: at,
    });
    const repo = (name: string, latest: Execution, base: Execution | null): Repository => ({
      repo: name,
      total: 1,
      latest,
      base,
    });
    const mainRun = record('main', 92.06, '2026-11-22T10:00:00Z', 'exe_1');
    const web = repo('web', record('feature/x', 91.53, '2026-11-22T12:00:00Z', 'exe_4'), mainRun);
    const api = repo('API', record('master', 70, '2026-11-22T11:00:00Z', 'exe_3'), null);
    const tool = repo('tool-10', record('trunk', 80, '2026-11-22T11:00:00Z', 'exe_2'), null);
    const tool2 = repo('tool-9', record('trunk', 80, '2026-11-22T09:00:00Z', 'exe_0'), null);
    const listed = [web, api, tool, tool2];
    expect(shownRun(web)).toBe(mainRun);
    expect(shownRun(api).branch).toBe('master');
    const names = (sort = DEFAULT_REPO_SORT, query = '') =>
      arrangeRepos(listed, query, sort).map((r) => r.repo);
    expect(names()).toEqual(['web', 'API', 'tool-10', 'tool-9']);
    expect(names(nextSort(DEFAULT_REPO_SORT, 'activity'))).toEqual([
      'tool-9',
      'tool-10',
      'API',
      'web',
    ]);
    const byName = nextSort(DEFAULT_REPO_SORT, 'name');
    expect(byName).toEqual({ key: 'name', descending: false });
    expect(names(byName)).toEqual(['API', 'tool-9', 'tool-10', 'web']);
    const byCoverage = nextSort(byName, 'coverage');
    expect(byCoverage).toEqual({ key: 'coverage', descending: true });
    expect(names(byCoverage)).toEqual(['web', 'tool-10', 'tool-9', 'API']);
    expect(names(nextSort(byCoverage, 'coverage'))).toEqual(['API', 'tool-10', 'tool-9', 'web']);
    expect(names(DEFAULT_REPO_SORT, ' TOOL ')).toEqual(['tool-10', 'tool-9']);
    expect(names(DEFAULT_REPO_SORT, 'nothing')).toEqual([]);
  });

  it('routes paths under the base path and back', () => {
    expect(parseRoute('/')).toEqual({ page: 'repos' });
    expect(parseRoute('/tokens')).toEqual({ page: 'tokens' });
    expect(parseRoute('/members')).toEqual({ page: 'members' });
    expect(pathOf({ page: 'members' })).toBe('/members');
    expect(parseRoute('/onboarding')).toEqual({ page: 'onboarding' });
    expect(parseRoute('/repos/a%2Fb')).toEqual({ page: 'repo', repo: 'a/b', filters: {} });
    expect(parseRoute('/repos/%E0%A4%A')).toEqual({ page: 'not-found' });
    expect(parseRoute('/nope')).toEqual({ page: 'not-found' });
    expect(pathOf({ page: 'repo', repo: 'a/b', filters: {} })).toBe('/repos/a%2Fb');
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

describe('roles in the dashboard', () => {
  it('lets owners and admins manage tokens, only owners members, as the API does', () => {
    expect([canManageTokens('owner'), canManageTokens('admin'), canManageTokens('member')]).toEqual(
      [true, true, false],
    );
    expect([
      canManageMembers('owner'),
      canManageMembers('admin'),
      canManageMembers('member'),
    ]).toEqual([true, false, false]);
  });

  it('names a member by login, else by user id', () => {
    expect(memberName({ login: 'octo', user_id: 'usr_1' })).toBe('octo');
    expect(memberName({ login: null, user_id: 'usr_1' })).toBe('usr_1');
  });

  it('knows the only owner, who cannot leave or be demoted', () => {
    const members = [
      { user_id: 'a', role: 'owner' as const },
      { user_id: 'b', role: 'member' as const },
    ];
    expect(isLastOwner(members, 'a')).toBe(true);
    expect(isLastOwner(members, 'b')).toBe(false);
    expect(isLastOwner([...members, { user_id: 'c', role: 'owner' as const }], 'a')).toBe(false);
  });

  it('lists pending invites first, keeping the order within each group', () => {
    const invites = [
      { id: '1', status: 'accepted' as const },
      { id: '2', status: 'pending' as const },
      { id: '3', status: 'revoked' as const },
      { id: '4', status: 'pending' as const },
    ];
    expect(arrangeInvites(invites).map((invite) => invite.id)).toEqual(['2', '4', '1', '3']);
  });
});

describe('the confirmation of an invite', () => {
  const session = {
    org: 'acme',
    org_id: 'org_01aaaaaaaaaaaaaaaaaaaaaaaa',
    role: 'admin' as const,
    organisations: [
      {
        org_id: 'org_01bbbbbbbbbbbbbbbbbbbbbbbb',
        org: 'github-42',
        name: 'bea',
        role: 'owner' as const,
      },
      {
        org_id: 'org_01aaaaaaaaaaaaaaaaaaaaaaaa',
        org: 'acme',
        name: 'Acme Inc',
        role: 'admin' as const,
      },
    ],
  };

  it('reads the outcome the API put in the URL, and nothing else', () => {
    expect(inviteOutcomeIn('?invite=joined')).toBe('joined');
    expect(inviteOutcomeIn('?branch=main&invite=already-member')).toBe('already-member');
    expect(inviteOutcomeIn('?invite=<b>owner</b>')).toBeNull();
    expect(inviteOutcomeIn('')).toBeNull();
    expect(searchWithoutInvite('?invite=joined')).toBe('');
    expect(searchWithoutInvite('?branch=main&invite=joined')).toBe('?branch=main');
  });

  it('names the organisation the session acts for and the role held there', () => {
    expect(inviteNotice('joined', session)).toBe('You joined Acme Inc (acme) as admin.');
    expect(inviteNotice('already-member', { ...session, org: 'acme', organisations: [] })).toBe(
      'You were already a member of acme, as admin.',
    );
  });
});
