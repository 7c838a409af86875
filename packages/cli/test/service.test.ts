import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CovgateApiError, CovgateNetworkError } from '@covgate/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayUrl, isUnavailable, serviceError } from '../src/service.js';
import { covgateIn } from './in-process.js';

const HOST = 'http://host:8080';
const WEB_PAGE_HINT =
  "set COVGATE_URL (or --url) to the covgate service's base URL, where its API answers /v1/..., not a page's address";

function apiError(init: Partial<ConstructorParameters<typeof CovgateApiError>[0]>) {
  return new CovgateApiError({
    status: 503,
    error: 'service unavailable',
    requestId: null,
    retryAfterSeconds: null,
    ...init,
  });
}

const refused = () =>
  new CovgateNetworkError(
    HOST,
    new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }),
    {
      attempts: 3,
      elapsedMs: 612,
    },
  );

describe('service errors', () => {
  it.each([
    [
      'a refused connection',
      refused(),
      'the service at http://host:8080 could not be reached: ECONNREFUSED (3 attempts over 0.6 s); check --url / COVGATE_URL',
    ],
    [
      'no answer within the time-out',
      new CovgateNetworkError(HOST, new DOMException('x', 'TimeoutError'), {
        attempts: 3,
        elapsedMs: 90_204,
        timeoutMs: 30_000,
      }),
      'the service at http://host:8080 did not answer within 30 s (3 attempts over 90.2 s)',
    ],
    [
      'a 503 after the retries',
      apiError({ attempts: 3, elapsedMs: 4_130 }),
      'the service at http://host:8080 answered 503 (service unavailable) after 3 attempts over 4.1 s',
    ],
    [
      'a 429 that asks for a longer wait than the client makes',
      apiError({
        status: 429,
        error: 'too many requests',
        retryAfterSeconds: 60,
        requestId: 'req-1',
        elapsedMs: 80,
      }),
      'the service at http://host:8080 answered 429 (too many requests; retry after 60 s; request req-1) after 1 attempt over 0.1 s',
    ],
    [
      "a proxy's 502 page",
      apiError({
        status: 502,
        error: 'HTTP 502',
        fromApi: false,
        contentType: 'text/html',
        attempts: 3,
        elapsedMs: 1_000,
      }),
      'the service at http://host:8080 answered 502 (text/html) after 3 attempts over 1.0 s',
    ],
    [
      'a server that is not covgate (501 HTML)',
      apiError({
        status: 501,
        error: 'HTTP 501',
        fromApi: false,
        contentType: 'text/html',
        attempts: 3,
      }),
      `http://host:8080 is not a covgate service (answered 501 text/html, a web page); ${WEB_PAGE_HINT}`,
    ],
    [
      "a 404 without covgate's JSON error",
      apiError({ status: 404, error: 'HTTP 404', fromApi: false }),
      'http://host:8080 is not a covgate service (answered 404 without a content type); check --url / COVGATE_URL',
    ],
    [
      'a web page answered 200',
      apiError({ status: 200, error: 'HTTP 200', fromApi: false, contentType: 'text/html' }),
      `http://host:8080 is not a covgate service (answered 200 text/html, a web page); ${WEB_PAGE_HINT}`,
    ],
    [
      'a refused token',
      apiError({ status: 401, error: 'invalid token' }),
      'the service refused the credential (401 invalid token); check the token (revoked, expired or for another server?)',
    ],
  ])('%s', (_, error, message) => {
    expect(serviceError(error, HOST)).toMatchObject({ message, exitCode: 3 });
  });

  it.each([
    ['https://covgate.example.com/dashboard', 'https://covgate.example.com'],
    ['https://covgate.example.com/dashboard/', 'https://covgate.example.com'],
    ['https://example.com/covgate/dashboard/runs/exe_1', 'https://example.com/covgate'],
  ])('names the service URL when COVGATE_URL is the dashboard: %s', (url, service) => {
    const post = apiError({ status: 405, fromApi: false, contentType: 'text/plain' });
    expect(serviceError(post, url)).toMatchObject({
      message: `${displayUrl(url)} is not a covgate service (answered 405 text/plain): that is the dashboard's address; set COVGATE_URL (or --url) to the service's: ${service}`,
      exitCode: 3,
    });
    const page = apiError({ status: 200, fromApi: false, contentType: 'text/html' });
    expect(serviceError(page, url)).toMatchObject({
      message: `${displayUrl(url)} is not a covgate service (answered 200 text/html, a web page): that is the dashboard's address; set COVGATE_URL (or --url) to the service's: ${service}`,
    });
  });

  it('exits 2 on a request the service calls invalid', () => {
    expect(
      serviceError(apiError({ status: 400, error: 'invalid parameter: repo' }), HOST),
    ).toMatchObject({
      message: 'the service rejected the request: 400 invalid parameter: repo',
      exitCode: 2,
    });
  });

  it('shows the URL without credentials, query or trailing slash', () => {
    expect(displayUrl('https://user:pw@covgate.example.com/covgate/?x=1#y')).toBe(
      'https://covgate.example.com/covgate',
    );
  });

  it('calls unavailable what --allow-unreachable lets pass, and nothing else', () => {
    expect(isUnavailable(refused())).toBe(true);
    expect(isUnavailable(apiError({}))).toBe(true);
    expect(isUnavailable(apiError({ status: 500, error: 'internal error' }))).toBe(true);
    expect(isUnavailable(apiError({ status: 429 }))).toBe(true);
    expect(isUnavailable(apiError({ status: 504, fromApi: false }))).toBe(true);
    expect(isUnavailable(apiError({ status: 501, fromApi: false }))).toBe(false);
    expect(isUnavailable(apiError({ status: 401 }))).toBe(false);
    expect(isUnavailable(apiError({ status: 403 }))).toBe(false);
    expect(isUnavailable(apiError({ status: 400 }))).toBe(false);
    expect(isUnavailable(new Error('other'))).toBe(false);
  });
});

// `covgate report` in-process, with the service replaced by a fetch the test writes.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'covgate-cli-service-'));
  await writeFile(join(dir, 'lcov.info'), 'SF:a.js\nDA:1,1\nDA:2,0\nend_of_record\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function report(
  args: string[],
  fetch: (request: Request) => Promise<Response>,
  env: NodeJS.ProcessEnv = {},
) {
  const requests: { url: string; body: string; key: string | null }[] = [];
  const result = await covgateIn(
    dir,
    ['report', '--report', 'lcov.info', ...args],
    { COVGATE_TOKEN: 'cvg_test', COVGATE_URL: HOST, ...env },
    async (input, init) => {
      const request = new Request(input, init);
      requests.push({
        url: request.url,
        body: await request.clone().text(),
        key: request.headers.get('idempotency-key'),
      });
      return fetch(request);
    },
  );
  return { ...result, requests };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
  });

const RECORD = {
  id: 'exe_01',
  repo: 'web',
  branch: 'changes',
  outcome: 'pass',
  delta: '0.00',
  coverage: 50,
  commit: null,
  created_at: '2026-11-25T00:00:00Z',
};

const FLAGS = ['--repo', 'web', '--branch', 'main'];

describe('covgate report when the service is unavailable', () => {
  it('exits 3 naming the URL, the answer, the attempts and the time', async () => {
    const result = await report(FLAGS, async () => json(503, { error: 'service unavailable' }));
    expect(result.code).toBe(3);
    expect(result.requests).toHaveLength(3);
    expect(result.stderr.split('\n').at(-2)).toMatch(
      /^covgate: the service at http:\/\/host:8080 answered 503 \(service unavailable\) after 3 attempts over \d+\.\d s$/,
    );
  });

  it('exits 0 with a warning, keeps the run for flush and says the project rule was not evaluated, under --allow-unreachable', async () => {
    const summary = join(dir, 'summary.md');
    const result = await report(
      [...FLAGS, '--allow-unreachable', '--json'],
      async () => json(503, { error: 'service unavailable' }),
      { GITHUB_STEP_SUMMARY: summary },
    );
    expect(result.code).toBe(0);
    // One key for the three attempts, and the kept run is named after it.
    const keys = new Set(result.requests.map((r) => r.key));
    expect(keys.size).toBe(1);
    const [key] = [...keys] as [string];
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    const kept = `.covgate/unsent/${key}.json`;
    const lines = result.stderr.split('\n');
    const warning =
      /^covgate: warning: (the service at http:\/\/host:8080 answered 503 \(service unavailable\) after 3 attempts over \d+\.\d s); the run was not posted \(--allow-unreachable\)$/.exec(
        lines[0] ?? '',
      );
    expect(warning).not.toBeNull();
    expect(lines.slice(1)).toEqual([
      `covgate: kept ${kept}: covgate flush posts it with the same idempotency key once the service answers`,
      'covgate: not evaluated: the project rule (delta thresholds and project target), which needs the service; it judges the run when it is posted',
      '',
    ]);
    expect(JSON.parse(result.stdout)).toEqual({
      posted: false,
      error: warning?.[1],
      repo: 'web',
      branch: 'main',
      coverage: 50,
      kept: [kept],
      idempotency_key: key,
      patch: null,
      project: 'not evaluated',
      exit_code: 0,
    });
    const stored = JSON.parse(await readFile(join(dir, kept), 'utf8'));
    expect(stored).toEqual({
      covgate_unsent: 1,
      idempotency_key: key,
      url: HOST,
      cli_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      kept_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      gzip: false,
      run: JSON.parse(result.requests[0]?.body ?? ''),
    });
    expect(await readFile(join(dir, '.covgate', '.gitignore'), 'utf8')).toBe('*\n');
    expect(await readFile(summary, 'utf8')).toBe(
      `### ⚠️ covgate: service unavailable, project rule not evaluated\n\n${warning?.[1]}: the run was not posted (\`--allow-unreachable\`); \`covgate flush\` posts it later.\n\nThe run has no patch: nothing was checked here.\n\n\`web\` on \`main\`, coverage 50.00%.\n\n`,
    );
    await rm(join(dir, '.covgate'), { recursive: true });
  });

  it('still fails under --allow-unreachable on a refused token or a server that is not covgate', async () => {
    const token = await report([...FLAGS, '--allow-unreachable'], async () =>
      json(401, { error: 'invalid token' }),
    );
    expect([token.code, token.stderr.split('\n').at(-2)]).toEqual([
      3,
      'covgate: the service refused the credential (401 invalid token); check the token (revoked, expired or for another server?)',
    ]);
    const other = await report(
      [...FLAGS, '--allow-unreachable'],
      async () =>
        new Response('<html>Not Implemented</html>', {
          status: 501,
          headers: { 'Content-Type': 'text/html' },
        }),
    );
    expect(other.code).toBe(3);
    expect(other.stderr).toContain(
      `covgate: http://host:8080 is not a covgate service (answered 501 text/html, a web page); ${WEB_PAGE_HINT}\n`,
    );
    expect(other.stderr).not.toContain('HTTP 501');
  });

  it('ends each attempt at --timeout and says how long it waited', async () => {
    const started = Date.now();
    const result = await report(
      [...FLAGS, '--timeout', '0.2'],
      (request) =>
        new Promise<Response>((_, reject) =>
          request.signal.addEventListener('abort', () => reject(request.signal.reason)),
        ),
    );
    expect(result.code).toBe(3);
    expect(result.stderr.split('\n').at(-2)).toMatch(
      /^covgate: the service at http:\/\/host:8080 did not answer within 0\.2 s \(3 attempts over \d+\.\d s\)$/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('takes the time-out from COVGATE_TIMEOUT and refuses one that is not seconds', async () => {
    const fromEnv = await report(
      FLAGS,
      (request) =>
        new Promise<Response>((_, reject) =>
          request.signal.addEventListener('abort', () => reject(request.signal.reason)),
        ),
      { COVGATE_TIMEOUT: '0.1' },
    );
    expect(fromEnv.stderr).toContain('did not answer within 0.1 s (3 attempts over');
    for (const args of [
      ['--timeout', '0'],
      ['--timeout', 'soon'],
      ['--timeout', '3601'],
    ]) {
      const bad = await report([...FLAGS, ...args], async () => json(201, RECORD));
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(
        `covgate: error: option '--timeout <seconds>' argument '${args[1]}' is invalid. seconds above 0 and at most 3600`,
      );
      expect(bad.requests).toHaveLength(0);
    }
  });
});

describe('covgate report in CI', () => {
  const event = fileURLToPath(
    new URL('./fixtures/github/pull_request.opened.json', import.meta.url),
  );

  it("posts a GitHub pull request's head commit, head branch, base branch and number", async () => {
    // Outside a git checkout: the number without a patch says "a pull request whose patch was
    // not measured".
    const result = await report(['--allow-missing-patch'], async () => json(201, RECORD), {
      GITHUB_ACTIONS: 'true',
      GITHUB_REPOSITORY: 'Codertocat/Hello-World',
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: event,
      GITHUB_REF: 'refs/pull/2/merge',
      GITHUB_HEAD_REF: 'changes',
      GITHUB_BASE_REF: 'master',
      GITHUB_SHA: '9a2c5e1e8b0a4c0f6f3b1d7e2c4a6b8d0e1f2a3b',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.requests[0]?.body ?? '')).toEqual({
      repo: 'Hello-World',
      branch: 'changes',
      coverage: 50,
      base_branch: 'master',
      commit: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
      pull_request: 2,
      // Lines 1-2 coverable, line 1 covered.
      files: [
        { path: 'a.js', covered: 1, coverable: 2, lines: { coverable: [1, 2], covered: [1, 1] } },
      ],
    });
  });

  it('asks for --branch on a tag build and posts nothing', async () => {
    const result = await report([], async () => json(201, RECORD), {
      GITLAB_CI: 'true',
      CI_PROJECT_PATH: 'acme/web',
      CI_COMMIT_TAG: 'v1.2.0',
      CI_COMMIT_REF_NAME: 'v1.2.0',
      CI_COMMIT_SHA: '5555555555555555555555555555555555555555',
    });
    expect([result.code, result.stderr, result.requests.length]).toEqual([
      2,
      'covgate: this is a build of tag v1.2.0, not of a branch: pass --branch NAME (the branch whose history the run belongs to, e.g. --branch main)\n',
      0,
    ]);
  });
});

describe('a session token given as the CI token', () => {
  const session = `cvgs_${'a'.repeat(64)}`;
  const hint =
    "holds a session token (cvgs_...), which signs a person in; the gate needs an API token (cvg_...) with the execute scope: create one with `covgate tokens create ci` or on the dashboard's API tokens page, and set COVGATE_TOKEN to it";

  it('exits 2 before sending it anywhere, saying what to set', async () => {
    const result = await report([], async () => json(201, RECORD), { COVGATE_TOKEN: session });
    expect([result.code, result.stdout, result.stderr, result.requests]).toEqual([
      2,
      '',
      `covgate: COVGATE_TOKEN ${hint}\n`,
      [],
    ]);
  });

  it('says so of COVGATE_TOKEN_FILE too', async () => {
    const file = join(dir, 'session-token');
    await writeFile(file, `${session}\n`);
    const result = await report([], async () => json(201, RECORD), {
      COVGATE_TOKEN: '',
      COVGATE_TOKEN_FILE: file,
    });
    expect([result.code, result.stderr, result.requests]).toEqual([
      2,
      `covgate: COVGATE_TOKEN_FILE ${file} ${hint}\n`,
      [],
    ]);
  });
});
