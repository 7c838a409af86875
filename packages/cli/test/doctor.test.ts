import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeOidcIssuer, startFakeOidcIssuer } from '@covgate/test-support/fake-oidc-issuer';
import { createTestApi } from '@covgate/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sh, toolEnv } from './git-support.js';
import { covgateIn } from './in-process.js';

// `covgate doctor` in-process against a test API: each check's pass, its failure and the fix
// it prints, line for line.

const SERVICE = 'http://covgate.test';

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'covgate-doctor-'));
});
afterAll(() => rm(home, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) => sh(cwd, 'git', args, toolEnv(home));

/** A checkout on `feature`, one commit ahead of `main`, with a report of its one source file. */
async function checkout(name: string): Promise<{ dir: string; head: string; base: string }> {
  const dir = join(home, name);
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'src', 'a.js'), 'a();\nb();\n');
  await git(dir, 'init', '-q', '-b', 'main');
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', 'base');
  const base = (await git(dir, 'rev-parse', 'HEAD')).trim();
  await git(dir, 'checkout', '-q', '-b', 'feature');
  await writeFile(join(dir, 'src', 'a.js'), 'a();\nb();\nc();\n');
  await git(dir, 'commit', '-q', '-am', 'one line');
  await writeFile(join(dir, 'lcov.info'), 'SF:src/a.js\nDA:1,1\nDA:2,1\nDA:3,0\nend_of_record\n');
  const head = (await git(dir, 'rev-parse', 'HEAD')).trim();
  return { dir, head, base };
}

async function service() {
  const t = createTestApi();
  const org = await t.createOrganisation();
  const { secret } = await t.insertToken(org);
  const { id: tokenId } = { id: secret.slice(4, 36) };
  const fetch: typeof globalThis.fetch = async (input, init) =>
    t.api.handle(new Request(input, init), { remoteAddress: '127.0.0.1' });
  const post = async (body: Record<string, unknown>) => {
    const response = await t.request('/v1/executions', {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: string; created_at: string };
  };
  return { t, org, secret, tokenId, fetch, post };
}

const env = (extra: Record<string, string> = {}) => ({
  ...toolEnv(home),
  COVGATE_URL: SERVICE,
  NO_COLOR: '1',
  ...extra,
});

describe('covgate doctor', () => {
  it('passes every check of a pull request whose base branch has a run, and exits 0', async () => {
    const { dir, head, base } = await checkout('all-pass');
    const s = await service();
    const run = await s.post({ repo: 'web', branch: 'main', coverage: 84.13, commit: base });
    const result = await covgateIn(
      dir,
      ['doctor', '--repo', 'web', '--base-branch', 'main'],
      env({ COVGATE_TOKEN: s.secret }),
      s.fetch,
    );
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n')).toEqual([
      `pass url: ${SERVICE} answers as the covgate API and is ready`,
      `pass credential: token ${s.tokenId} of organisation ${s.org.slug} has the execute scope`,
      `pass target: web@feature, commit ${head}, base branch main`,
      `pass fetch depth: the whole history; the merge base with main is ${base.slice(0, 12)}, so the patch is measured without fetching`,
      `pass base branch: web on main has 1 run; the latest passing is ${run.id} at 84.13% (${run.created_at})`,
      'pass reports: lcov.info (lcov): 2 of 3 lines in 1 file, 66.66%',
      `warn repository link: web is not linked to a code host (latest run ${run.id}): no commit status or pull request comment is posted, so a required covgate/project check waits forever Fix: an owner or admin links it: POST /v1/repos/code-host-link?org=${s.org.slug}&repo=web {"host":"github","repository":"<owner/name>","token":"..."}, or the repository's settings page (docs/guide/pull-request-feedback.md)`,
      '',
    ]);
    expect(result.code).toBe(0);
  });

  it.each([
    ['Gitea Actions', { GITEA_ACTIONS: 'true' }, 'gitea/pull_request.synchronized.json'],
    [
      'Forgejo Actions',
      { GITEA_ACTIONS: 'true', FORGEJO_ACTIONS: 'true' },
      'forgejo/pull_request.reopened.json',
    ],
  ])('names the CI it read the target from: %s', async (name, runner, fixture) => {
    const { dir } = await checkout(`ci-${fixture.split('/')[0]}`);
    const s = await service();
    // A recorded pull request payload (fixtures/README.md); head and number differ per fixture.
    const event = fileURLToPath(new URL(`./fixtures/${fixture}`, import.meta.url));
    const pull = JSON.parse(await readFile(event, 'utf8')) as {
      number: number;
      pull_request: { head: { ref: string; sha: string } };
    };
    const result = await covgateIn(
      dir,
      ['doctor', '--repo', 'web'],
      env({
        COVGATE_TOKEN: s.secret,
        GITHUB_ACTIONS: 'true',
        ...runner,
        GITHUB_REPOSITORY: 'acme/web',
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: event,
        GITHUB_REF: `refs/pull/${pull.number}/head`,
        GITHUB_HEAD_REF: pull.pull_request.head.ref,
        GITHUB_BASE_REF: 'main',
        GITHUB_SHA: pull.pull_request.head.sha,
      }),
      s.fetch,
    );
    expect(result.stdout.split('\n')[2]).toBe(
      `pass target: web@${pull.pull_request.head.ref}, commit ${pull.pull_request.head.sha}, base branch main, pull request #${pull.number}, read from ${name}`,
    );
  });

  it('prints the checks as JSON with --json', async () => {
    const { dir } = await checkout('json');
    const s = await service();
    const result = await covgateIn(
      dir,
      ['doctor', '--repo', 'web', '--base-branch', 'main', '--json'],
      env({ COVGATE_TOKEN: s.secret }),
      s.fetch,
    );
    expect(result.code).toBe(1);
    const answer = JSON.parse(result.stdout);
    expect(answer.exit_code).toBe(1);
    expect(
      answer.checks.map((c: { check: string; verdict: string }) => [c.check, c.verdict]),
    ).toEqual([
      ['url', 'pass'],
      ['credential', 'pass'],
      ['target', 'pass'],
      ['fetch depth', 'pass'],
      ['base branch', 'fail'],
      ['reports', 'pass'],
      ['repository link', 'skip'],
    ]);
    expect(answer.checks[4]).toEqual({
      check: 'base branch',
      verdict: 'fail',
      message: 'web on main has no run yet, so a change is compared with nothing (no baseline)',
      fix: 'post a run from the base branch first: run covgate on pushes to it (on: push: branches: [main])',
    });
  });

  it('fails the url check of a service that cannot be reached, and skips the credential', async () => {
    const { dir } = await checkout('unreachable');
    const refused: typeof fetch = async () => {
      throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    };
    const result = await covgateIn(
      dir,
      ['doctor', '--repo', 'web', '--base-branch', 'main'],
      env({ COVGATE_TOKEN: `cvg_${'0'.repeat(40)}`, COVGATE_TIMEOUT: '1' }),
      refused,
    );
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      `fail url: ${SERVICE} cannot be reached: ECONNREFUSED Fix: set COVGATE_URL (or --url) to the covgate service's base URL, and check that this job reaches it`,
      'skip credential: not checked: the service does not answer',
    ]);
    expect(lines[4]).toBe('skip base branch: not checked: no working credential');
    expect(result.code).toBe(1);
  });

  it("names the service's address when the URL is the dashboard's", async () => {
    const { dir } = await checkout('dashboard');
    const page: typeof fetch = async () =>
      new Response('<!doctype html><title>covgate</title>', {
        headers: { 'content-type': 'text/html' },
      });
    const result = await covgateIn(
      dir,
      ['doctor', '--repo', 'web', '--url', `${SERVICE}/dashboard/repos`],
      env({ COVGATE_TOKEN: `cvg_${'0'.repeat(40)}` }),
      page,
    );
    expect(result.stdout.split('\n')[0]).toBe(
      `fail url: ${SERVICE}/dashboard/repos is the dashboard's address, not the API's (GET /health answered 200 text/html) Fix: set COVGATE_URL (or --url) to ${SERVICE}`,
    );
    expect(result.code).toBe(1);
  });

  it('fails the credential check without a token, of a refused token, of one without execute, of another --org', async () => {
    const { dir } = await checkout('credential');
    const s = await service();
    const args = ['doctor', '--repo', 'web', '--base-branch', 'main'];
    const credentialLine = async (extra: Record<string, string>, more: string[] = []) =>
      (await covgateIn(dir, [...args, ...more], env(extra), s.fetch)).stdout.split('\n')[1];
    const create =
      'create an API token with the execute scope (`covgate tokens create ci`, or the API tokens page of the dashboard) and store it as the CI secret COVGATE_TOKEN';
    expect(await credentialLine({})).toBe(
      `fail credential: no credential: COVGATE_TOKEN and COVGATE_TOKEN_FILE are not set, and the job has no OIDC ID token Fix: ${create}; or post keyless: give the job \`permissions: id-token: write\` (GitHub Actions) or an \`id_tokens:\` entry (GitLab CI) and pass --org`,
    );
    expect(await credentialLine({ COVGATE_TOKEN: `cvg_${'0'.repeat(40)}` })).toBe(
      `fail credential: ${SERVICE} refuses COVGATE_TOKEN (invalid token): revoked, expired, or a token of another server Fix: ${create}`,
    );
    const { id, secret } = await s.t.insertToken(s.org, { scopes: [] });
    expect(await credentialLine({ COVGATE_TOKEN: secret })).toBe(
      `fail credential: token ${id} of organisation ${s.org.slug} lacks the execute scope (scopes: none) Fix: ${create}`,
    );
    expect(await credentialLine({ COVGATE_TOKEN: s.secret }, ['--org', 'other'])).toBe(
      `fail credential: token ${s.tokenId} of organisation ${s.org.slug} cannot post to organisation other (--org) Fix: use a token of organisation other, or drop --org`,
    );
  });

  it('fails the fetch depth check when the base branch is not in the checkout and there is no origin', async () => {
    const { dir } = await checkout('no-base');
    const s = await service();
    const result = await covgateIn(
      dir,
      ['doctor', '--repo', 'web', '--base-branch', 'release'],
      env({ COVGATE_TOKEN: s.secret }),
      s.fetch,
    );
    expect(result.stdout.split('\n')[3]).toBe(
      'fail fetch depth: the base branch release is not in this checkout (no origin/release or release); fetch it before covgate runs: git fetch --no-tags origin release:refs/remotes/origin/release (in GitHub Actions: actions/checkout with fetch-depth: 0); and covgate run cannot fetch it: no remote named origin Fix: check out the whole history (actions/checkout with fetch-depth: 0; GitLab CI GIT_DEPTH: 0)',
    );
    expect(result.code).toBe(1);
  });

  it('warns on a shallow clone, naming the fetches covgate run would make, and fetches nothing', async () => {
    const { dir: origin } = await checkout('origin');
    const clone = join(home, 'shallow');
    await git(
      home,
      'clone',
      '-q',
      '--depth',
      '1',
      '--branch',
      'feature',
      `file://${origin}`,
      clone,
    );
    await writeFile(join(clone, 'lcov.info'), 'SF:src/a.js\nDA:1,1\nend_of_record\n');
    const head = (await git(clone, 'rev-parse', 'HEAD')).trim();
    const s = await service();
    const result = await covgateIn(
      clone,
      ['doctor', '--repo', 'web', '--base-branch', 'main'],
      env({ COVGATE_TOKEN: s.secret }),
      s.fetch,
    );
    const refspec = '+refs/heads/main:refs/remotes/origin/main';
    expect(result.stdout.split('\n')[3]).toBe(
      `warn fetch depth: a shallow checkout without the merge base with main: covgate run fetches git fetch --no-tags --depth=50 origin ${refspec} ${head}, then as needed git fetch --no-tags --depth=200 origin ${refspec} ${head}; git fetch --no-tags --depth=1000 origin ${refspec} ${head}; git fetch --no-tags --unshallow origin ${refspec} Fix: check out the whole history (actions/checkout with fetch-depth: 0; GitLab CI GIT_DEPTH: 0) to save the fetches`,
    );
    expect(await git(clone, 'rev-parse', '--is-shallow-repository')).toBe('true\n');
    expect(await git(clone, 'branch', '-r')).not.toContain('origin/main');
  });

  it('fails the reports check when no report is found, and warns on files not in the checkout', async () => {
    const { dir } = await checkout('reports');
    const s = await service();
    await s.post({ repo: 'web', branch: 'main', coverage: 50 });
    const args = ['doctor', '--repo', 'web', '--base-branch', 'main'];
    await rm(join(dir, 'lcov.info'));
    const none = await covgateIn(dir, args, env({ COVGATE_TOKEN: s.secret }), s.fetch);
    expect(none.stdout.split('\n')[5]).toMatch(
      /^fail reports: no coverage report found below .* \(searched 2 folders for .*\) Fix: run covgate doctor after the tests wrote their report, or name it with --report PATH$/,
    );
    expect(none.code).toBe(1);
    await writeFile(join(dir, 'lcov.info'), 'SF:lib/a.js\nDA:1,1\nend_of_record\n');
    const fix =
      'Fix: give the folder the paths are relative to with --path-prefix after the --report, or rewrite a leading folder with --path-map FROM=TO';
    const unknown = await covgateIn(dir, args, env({ COVGATE_TOKEN: s.secret }), s.fetch);
    expect(unknown.stdout.split('\n')[5]).toBe(
      `warn reports: lcov.info (lcov): 1 of 1 lines in 1 file, 100.00%; 1 file the reports name is not in the checkout: lib/a.js ${fix}`,
    );
    expect(unknown.code).toBe(0);
    const strict = await covgateIn(
      dir,
      [...args, '--strict-paths'],
      env({ COVGATE_TOKEN: s.secret }),
      s.fetch,
    );
    expect(strict.stdout.split('\n')[5]).toBe(
      `fail reports: lcov.info (lcov): 1 of 1 lines in 1 file, 100.00%; 1 file the reports name is not in the checkout: lib/a.js ${fix}`,
    );
    expect(strict.code).toBe(1);
  });
});

describe('covgate doctor with the job OIDC ID token', () => {
  const TOKEN_SERVICE = 'https://pipelines.actions.example/idtoken?api-version=2.0';
  let issuer: FakeOidcIssuer | undefined;
  afterEach(async () => {
    await issuer?.close();
    issuer = undefined;
  });

  /** A test API trusting GitHub's `acme/api` on main for `api`, and a job of `ref`. */
  async function keyless(ref: string) {
    const github = await startFakeOidcIssuer();
    issuer = github;
    const t = createTestApi({
      allowPrivateCodeHosts: ['127.0.0.1'],
      ciTokens: { audience: SERVICE, github: github.issuer },
    });
    const org = await t.createOrganisation('team');
    const { token: session } = await t.createSession(org, 'usr_owner');
    const trusted = await t.request('/v1/repos/settings', {
      method: 'PATCH',
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        org: org.slug,
        repo: 'api',
        ci_trust: [{ provider: 'github', repository: 'acme/api', ref: 'refs/heads/main' }],
      }),
    });
    expect(trusted.status).toBe(200);
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const request = new Request(input, init);
      if (request.url.startsWith('https://pipelines.actions.example/')) {
        const value = await github.sign({
          aud: new URL(request.url).searchParams.get('audience') ?? '',
          repository: 'acme/api',
          ref,
          iat: now,
          nbf: now,
          exp: now + 300,
        });
        return Response.json({ count: 1, value });
      }
      return t.api.handle(request, { remoteAddress: '203.0.113.7' });
    };
    const job = env({
      GITHUB_ACTIONS: 'true',
      ACTIONS_ID_TOKEN_REQUEST_URL: TOKEN_SERVICE,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'request-token',
    });
    return { t, org, fetch, job, github };
  }

  it('passes the credential of a job the repository trusts, and skips the base branch', async () => {
    const { dir } = await checkout('keyless-trusted');
    const { org, fetch, job } = await keyless('refs/heads/main');
    const result = await covgateIn(
      dir,
      [
        'doctor',
        '--repo',
        'api',
        '--branch',
        'feature',
        '--base-branch',
        'main',
        '--org',
        org.slug,
      ],
      job,
      fetch,
    );
    const lines = result.stdout.split('\n');
    expect(lines[1]).toBe(
      `pass credential: repository api of organisation ${org.slug} trusts the job's OIDC ID token (repository acme/api, ref refs/heads/main): its runs are recorded as oidc:github:acme/api@refs/heads/main`,
    );
    expect(lines[4]).toBe(
      "skip base branch: not checked: an OIDC ID token may only post runs, not read them (the service compares with the base branch's runs when the run is posted)",
    );
    expect(result.code).toBe(0);
  });

  it('fails the credential of a job the repository does not trust, printing the ci_trust entry', async () => {
    const { dir } = await checkout('keyless-untrusted');
    const { org, fetch, job } = await keyless('refs/heads/feature');
    const result = await covgateIn(
      dir,
      [
        'doctor',
        '--repo',
        'api',
        '--branch',
        'feature',
        '--base-branch',
        'main',
        '--org',
        org.slug,
      ],
      job,
      fetch,
    );
    expect(result.stdout.split('\n')[1]).toBe(
      `fail credential: repository api of organisation ${org.slug} does not trust the job's OIDC ID token (repository acme/api, ref refs/heads/feature) (or the organisation or the repository does not exist) Fix: an owner or admin of ${org.slug} adds the job to the repository's ci_trust: PATCH /v1/repos/settings {"repo":"api","ci_trust":[{"provider":"github","repository":"acme/api","ref":"refs/heads/feature"}]} (docs/keyless-ci.md)`,
    );
    expect(result.code).toBe(1);
  });

  it('fails the credential of a token asked for another audience, naming the issuer', async () => {
    const { dir } = await checkout('keyless-audience');
    const { org, fetch, job, github } = await keyless('refs/heads/main');
    const result = await covgateIn(
      dir,
      [
        'doctor',
        '--repo',
        'api',
        '--branch',
        'feature',
        '--org',
        org.slug,
        '--oidc-audience',
        'covgate',
      ],
      job,
      fetch,
    );
    expect(result.stdout.split('\n')[1]).toBe(
      `fail credential: ${SERVICE} refuses the job's OIDC ID token (repository acme/api, ref refs/heads/main), issued by ${github.issuer} for audience covgate: the server takes no ID tokens from that issuer, expects another audience, or the token expired Fix: ask for the audience the server's OIDC_AUDIENCE names with --oidc-audience (or COVGATE_OIDC_AUDIENCE), and check that the server trusts the issuer (docs/keyless-ci.md)`,
    );
    expect(result.code).toBe(1);
  });

  it('fails without --org, before asking for a token', async () => {
    const { dir } = await checkout('keyless-no-org');
    const { fetch, job } = await keyless('refs/heads/main');
    const result = await covgateIn(dir, ['doctor', '--repo', 'api'], job, fetch);
    expect(result.stdout.split('\n')[1]).toBe(
      "fail credential: a run posted with the job's OIDC ID token names its organisation: pass --org SLUG (the organisation whose repository settings trust this job) Fix: pass --org SLUG, the organisation whose repository settings trust this job",
    );
  });
});

describe('covgate doctor, the repository link', () => {
  it('warns when the repository is not linked, passes when it is, and fails on a token the code host refused', async () => {
    const { dir, head, base } = await checkout('link');
    const s = await service();
    await s.post({ repo: 'web', branch: 'main', coverage: 80, commit: base });
    const args = ['doctor', '--repo', 'web', '--base-branch', 'main'];
    const linkLine = async () =>
      (await covgateIn(dir, args, env({ COVGATE_TOKEN: s.secret }), s.fetch)).stdout.split('\n')[6];

    const unlinked = await covgateIn(dir, args, env({ COVGATE_TOKEN: s.secret }), s.fetch);
    const [latest] = await s.t.store.listExecutions({ orgId: s.org.id, repo: 'web', limit: 1 });
    expect(unlinked.stdout.split('\n')[6]).toBe(
      `warn repository link: web is not linked to a code host (latest run ${latest?.id}): no commit status or pull request comment is posted, so a required covgate/project check waits forever Fix: an owner or admin links it: POST /v1/repos/code-host-link?org=${s.org.slug}&repo=web {"host":"github","repository":"<owner/name>","token":"..."}, or the repository's settings page (docs/guide/pull-request-feedback.md)`,
    );
    expect(unlinked.code).toBe(0);

    const { token: session } = await s.t.createSession(s.org, 'usr_owner');
    const linked = await s.t.request(`/v1/repos/code-host-link?org=${s.org.slug}&repo=web`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      body: JSON.stringify({ host: 'github', repository: 'acme/web', token: 'ghp_secret' }),
    });
    expect(linked.status).toBe(200);
    const run = await s.post({ repo: 'web', branch: 'feature', coverage: 80, commit: head });
    expect(await linkLine()).toBe(
      `pass repository link: web is linked to github:acme/web; of the latest run ${run.id}, 0 sent and 1 pending`,
    );

    // The outbox's record of GitHub refusing the link's token, as the worker writes it.
    const now = s.t.clock.now();
    const [delivery] = await s.t.store.claimDeliveries('doctor-test', now, 60_000, 10);
    expect(delivery?.executionId).toBe(run.id);
    await s.t.store.failDelivery(delivery?.id as string, 'doctor-test', {
      at: now,
      error: 'GitHub refused the token (401 Bad credentials)',
      status: 401,
    });
    const refused = await covgateIn(dir, args, env({ COVGATE_TOKEN: s.secret }), s.fetch);
    expect(refused.stdout.split('\n')[6]).toBe(
      `fail repository link: web is linked to github:acme/web, and the code host refused covgate/project of the latest run ${run.id} with 401: GitHub refused the token (401 Bad credentials) Fix: the link's token is revoked or expired: an owner or admin links the repository again with a new token (docs/guide/pull-request-feedback.md)`,
    );
    expect(refused.code).toBe(1);
  });
});
