import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { encryptCredential, repositoryLinkCredentialContext } from '@covgate/core/internal';
import {
  type BuiltServer,
  isServerBuilt,
  startBuiltServer,
} from '@covgate/test-support/built-server';
import { run } from '@covgate/test-support/processes';
import { type FakeGithubRest, startFakeGithubRest } from '@covgate/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOrganisation } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/open-store.js';

// The pull-request comment's changed lines not covered, end to end: a real git diff, a real
// lcov report of c8 over `node --test`, the built `covgate` bin, the built reference server
// and a fake GitHub; the lines the comment lists are those diff-cover says are missing.

const CLI = fileURLToPath(new URL('../../../packages/cli/dist/bin.js', import.meta.url));
const C8 = fileURLToPath(new URL('../../../packages/cli/node_modules/.bin/c8', import.meta.url));
const SESSION_SECRET = 'e2e-comment-lines-secret-0123456789abcdef';
const GITHUB_TOKEN = 'github_pat_e2eLINEStoken0123456789';
const GITHUB_REPO = 'octo/shop';
const silent = pino({ base: null }, new Writable({ write: (_c, _e, done) => done() }));

const diffCoverInstalled =
  (await run('diff-cover', ['--version'], { env: { PATH: process.env.PATH } }).catch(() => null))
    ?.code === 0;
const ready = isServerBuilt() && existsSync(CLI) && existsSync(C8) && diffCoverInstalled;

const BASE_PRICE = `export function total(items) {
  let sum = 0;
  for (const item of items) {
    sum += item.price * item.count;
  }
  return sum;
}
`;

// A changed loop body with an untested guard, a function tested on one branch, one never
// called, and a new module half tested.
const FEATURE_PRICE = `export function total(items) {
  let sum = 0;
  for (const item of items) {
    if (item.count <= 0) {
      throw new Error(\`bad count for \${item.name}\`);
    }
    sum += item.price * item.count;
  }
  return sum;
}

export function discount(amount, code) {
  if (code === 'HALF') {
    return amount / 2;
  }
  if (code === 'TENOFF') {
    const off = Math.min(10, amount);
    return amount - off;
  }
  return amount;
}

export function refund(amount) {
  const fee = 1;
  return Math.max(0, amount - fee);
}
`;

const TAX = `export function tax(amount) {
  if (amount > 100) {
    return amount * 0.2;
  }
  return amount * 0.1;
}
`;

const testFile = (feature: boolean) => `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ${feature ? 'discount, ' : ''}total } from '../src/price.mjs';
${feature ? "import { tax } from '../src/tax.mjs';\n" : ''}
test('total', () => assert.equal(total([{ price: 2, count: 3 }]), 6));
${feature ? "test('discount', () => assert.equal(discount(10, 'HALF'), 5));\ntest('tax', () => assert.equal(tax(10), 1));\n" : ''}`;

/** diff-cover's `Missing lines` per file from its text report (`src/a.mjs (47.4%): Missing lines 5-6,16-20`). */
function diffCoverMissing(text: string): Map<string, string> {
  const missing = new Map<string, string>();
  for (const match of text.matchAll(/^(\S+) \([\d.]+%\): Missing lines (\S+)$/gm)) {
    missing.set(match[1] as string, match[2] as string);
  }
  return missing;
}

describe.skipIf(!ready && process.env.CI !== '1')(
  "the comment's changed lines not covered, from a real report and diff (SQLite)",
  { timeout: 180_000 },
  () => {
    let fake: FakeGithubRest;
    let server: BuiltServer;
    let workDir: string;
    let token: string;

    beforeAll(async () => {
      fake = await startFakeGithubRest();
      fake.allowToken(GITHUB_TOKEN, [GITHUB_REPO]);
      workDir = await mkdtemp(join(tmpdir(), 'covgate-e2e-comment-lines-'));
      const dataDir = join(workDir, 'data');
      const store = await openStore(loadConfig({ COVGATE_DATA_DIR: dataDir, PORT: '0' }), silent);
      const boot = await bootstrapOrganisation(store, {
        slug: `lines-${Date.now().toString(36)}`,
        plan: 'enterprise',
        userId: 'usr_lines_owner',
        sessionSecret: SESSION_SECRET,
        sessionLifetimeSeconds: undefined,
      });
      const orgId = boot.organisation.id;
      const now = new Date();
      await store.putRepositoryLink({
        orgId,
        repo: 'shop',
        host: 'github',
        repository: GITHUB_REPO,
        apiUrl: fake.apiUrl,
        credential: encryptCredential(
          GITHUB_TOKEN,
          repositoryLinkCredentialContext(orgId, 'shop'),
          { sessionSecret: SESSION_SECRET },
        ),
        credentialHint: '…6789',
        createdBy: 'usr_lines_owner',
        createdAt: now,
        updatedAt: now,
      });
      await store.close();
      server = await startBuiltServer({
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        PORT: '0',
        COVGATE_DATA_DIR: dataDir,
        SESSION_SECRET,
        PUBLIC_URL: 'https://covgate.example.com',
        OUTBOX_POLL_SECONDS: '1',
        // The fake GitHub listens on loopback.
        ALLOW_PRIVATE_CODE_HOSTS: '1',
      });
      const created = await fetch(`${server.url}/v1/tokens`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${boot.sessionToken}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: 'ci' }),
      });
      token = ((await created.json()) as { secret: string }).secret;
    }, 120_000);

    afterAll(async () => {
      await server?.kill();
      await fake?.close();
      if (workDir) await rm(workDir, { recursive: true, force: true });
    });

    it('lists the changed lines no test ran, as diff-cover says, each file linked to its lines', async () => {
      const dir = join(workDir, 'repo');
      await mkdir(join(dir, 'src'), { recursive: true });
      await mkdir(join(dir, 'test'));
      const env = {
        PATH: process.env.PATH,
        HOME: workDir,
        NO_COLOR: '1',
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t.invalid',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t.invalid',
        GIT_CONFIG_NOSYSTEM: '1',
      };
      const sh = async (command: string, args: string[], extra: NodeJS.ProcessEnv = {}) => {
        const result = await run(command, args, { cwd: dir, env: { ...env, ...extra } });
        return result;
      };
      const ok = async (command: string, args: string[]) => {
        const result = await sh(command, args);
        expect(result.code, result.stderr).toBe(0);
        return result.stdout.trim();
      };
      await writeFile(join(dir, 'src', 'price.mjs'), BASE_PRICE);
      await writeFile(join(dir, 'test', 'price.test.mjs'), testFile(false));
      await writeFile(join(dir, '.gitignore'), 'coverage/\n');
      await ok('git', ['init', '-q', '-b', 'main']);
      await ok('git', ['add', '-A']);
      await ok('git', ['commit', '-q', '-m', 'base']);
      await ok('git', ['checkout', '-q', '-b', 'feature']);
      await writeFile(join(dir, 'src', 'price.mjs'), FEATURE_PRICE);
      await writeFile(join(dir, 'src', 'tax.mjs'), TAX);
      await writeFile(join(dir, 'test', 'price.test.mjs'), testFile(true));
      await ok('git', ['add', '-A']);
      await ok('git', ['commit', '-q', '-m', 'discounts and tax']);
      const head = await ok('git', ['rev-parse', 'HEAD']);
      await ok(C8, [
        '--reporter=lcov',
        '--reports-dir=coverage',
        process.execPath,
        '--test',
        'test/price.test.mjs',
      ]);
      const reference = diffCoverMissing(
        await ok('diff-cover', ['coverage/lcov.info', '--compare-branch=main']),
      );
      // The comparison means something: two files, each with missed changed lines.
      expect([...reference.keys()].sort()).toEqual(['src/price.mjs', 'src/tax.mjs']);

      const event = join(workDir, 'pull_request.json');
      await writeFile(
        event,
        JSON.stringify({
          pull_request: { number: 4, head: { ref: 'feature', sha: head }, base: { ref: 'main' } },
        }),
      );
      const report = await sh(
        process.execPath,
        [CLI, 'report', '--report', 'coverage/lcov.info', '--repo', 'shop', '--json'],
        {
          COVGATE_URL: server.url,
          COVGATE_TOKEN: token,
          GITHUB_ACTIONS: 'true',
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: event,
          GITHUB_REF: 'refs/pull/4/merge',
          GITHUB_HEAD_REF: 'feature',
          GITHUB_BASE_REF: 'main',
          GITHUB_REPOSITORY: GITHUB_REPO,
        },
      );
      expect(report.code, report.stderr).toBe(1);
      const { execution_id: id } = JSON.parse(report.stdout) as { execution_id: string };

      await expect.poll(() => fake.commentsOf(GITHUB_REPO, 4).length, { timeout: 30_000 }).toBe(1);
      const body = fake.commentsOf(GITHUB_REPO, 4)[0]?.body ?? '';
      const runUrl = `https://covgate.example.com/dashboard/repos/shop/runs/${id}`;
      const fileUrl = (path: string) => `${runUrl}/files/${encodeURIComponent(path)}`;
      expect(body).toBe(
        [
          '<!-- covgate:pr-comment -->',
          `<!-- covgate:run ${id} -->`,
          '### covgate: **fail** (decided by the patch rule)',
          '',
          'Failed by the patch rule: 52.00% of the patch’s lines are covered, below the target of 80.00% (covgate’s default). There is no baseline: the base branch had no run to compare with.',
          '',
          '| | Coverage | Change | Result |',
          '|---|---|---|---|',
          '| Project | 62.50% | no baseline on `main` yet | — |',
          '| Patch | 52.00% (13 of 25 changed lines) | target 80% | fail |',
          '| Branches | 62.50% (5 of 8 branches) | — | not gated |',
          // The changed lines' branches (c8's BRDA lines among them), shown since issue 43.
          '| Patch branches | 50.00% (3 of 6 branches) | — | not gated |',
          '',
          '**Changed lines not covered** (12 lines in 2 files)',
          '',
          `- [\`src/price.mjs\`](${fileUrl('src/price.mjs')}): 5-6, 16-20, 24-26`,
          `- [\`src/tax.mjs\`](${fileUrl('src/tax.mjs')}): 3-4`,
          '',
          `[Open the run in covgate](${runUrl}) · commit \`${head.slice(0, 7)}\``,
          '',
        ].join('\n'),
      );
      // The lines listed per file are diff-cover's "Missing lines", file for file.
      const listed = new Map(
        [...body.matchAll(/^- \[`([^`]+)`\]\([^)]+\): (.+)$/gm)].map((m) => [
          m[1] as string,
          (m[2] as string).replaceAll(' ', ''),
        ]),
      );
      expect(listed).toEqual(reference);
      expect(server.output()).not.toContain(GITHUB_TOKEN);
    });
  },
);
