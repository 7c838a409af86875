import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, type Started, startListening, stop } from '../../test/support/processes.js';

// The adapter pages and package READMEs show one path from an empty store to a listed
// execution; the pages include the files, the READMEs copy them. Both are checked here.
const docs = fileURLToPath(new URL('../', import.meta.url));
const snippets = join(docs, 'snippets');
const repo = join(docs, '..');
const PATH_SCRIPT = 'empty-store-to-list.sh';

const adapters = [
  { name: 'express', app: 'express-app.cjs', page: 'adapters/express.md' },
  { name: 'hapi', app: 'hapi-app.mjs', page: 'adapters/hapi.md' },
  { name: 'fetch', app: 'fetch-app.mjs', page: 'adapters/node-bridge.md' },
] as const;

/** The quick starts include the same path script beside their own application files. */
const quickStarts = [
  { name: 'express quick start', app: 'express-app.mjs', page: 'quickstart/embed-express.md' },
  { name: 'hapi quick start', app: 'hapi-app.mjs', page: 'quickstart/embed-hapi.md' },
  { name: 'fetch quick start', app: 'fetch-app.mjs', page: 'quickstart/embed-fetch.md' },
] as const;

const built = ['core', 'express', 'hapi', 'fetch'].every((name) =>
  existsSync(join(repo, 'packages', name, 'dist', 'index.js')),
);
if (!built) {
  console.warn('[covgate] adapter path samples SKIPPED: run `pnpm build` first (`pnpm test` does)');
}

const snippet = async (file: string) => (await readFile(join(snippets, file), 'utf8')).trimEnd();

describe('adapter docs: the path from an empty store to a listed execution', () => {
  it.each(adapters)('$name: the README copies the sample files exactly', async (adapter) => {
    const readme = await readFile(join(repo, 'packages', adapter.name, 'README.md'), 'utf8');
    expect(readme).toContain(await snippet(adapter.app));
    expect(readme).toContain(await snippet(PATH_SCRIPT));
  });

  it.each([...adapters, ...quickStarts])(
    '$name: the page includes the sample files',
    async (adapter) => {
      const page = await readFile(join(docs, adapter.page), 'utf8');
      expect(page).toContain(`<<< @/snippets/${adapter.app}{js}`);
      expect(page).toContain(`<<< @/snippets/${PATH_SCRIPT}`);
    },
  );
});

describe.skipIf(!built && process.env.CI !== '1')('adapter path samples, run', () => {
  let workDir: string;
  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'covgate-adapter-path-'));
  });
  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  describe.each([adapters[0], ...quickStarts])('$name', (adapter) => {
    let app: Started | undefined;
    afterAll(() => stop(app));

    it('creates the organisation, session and token, ingests a run and lists it', async () => {
      const env = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: '0',
        SESSION_SECRET: 'adapter-path-session-secret-0123456789abcdef0123456789',
        SERVICE_TOKEN: 'adapter-path-service-token-0123456789abcdef0123456789',
      };
      // Run from docs/ so the samples resolve the packages as an application would.
      app = await startListening([join(snippets, adapter.app)], { cwd: docs, env });
      const result = await run('bash', [join(snippets, PATH_SCRIPT)], {
        cwd: workDir,
        env: { ...env, COVGATE_URL: app.url },
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const listed = JSON.parse(result.stdout) as {
        executions: Record<string, unknown>[];
        total: number;
      };
      expect(listed.total).toBe(1);
      expect(listed.executions).toEqual([
        {
          id: expect.stringMatching(/^exe_[0-9a-z]{26}$/),
          repo: 'web',
          branch: 'main',
          outcome: 'pass',
          delta: '0.00',
          coverage: 84.13,
          commit: null,
          created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
          baseline: null,
          // Nothing posted: the sample links no code host.
          feedback: {
            link: null,
            commit: 'none',
            pull_request: null,
            items: ['status_project', 'status_patch', 'comment'].map((kind) => ({
              kind,
              name:
                { status_project: 'covgate/project', status_patch: 'covgate/patch' }[kind] ??
                'comment',
              queued: false,
              reason: 'not_linked',
              message: 'not sent: the repository is not linked to a code host',
            })),
          },
        },
      ]);
    });
  });
});
