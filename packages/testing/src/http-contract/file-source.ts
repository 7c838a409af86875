import type { CodeHostKind } from '@covgate/core';
import { encryptCredential, repositoryLinkCredentialContext } from '@covgate/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGiteaRest, startFakeGiteaRest } from '../fake-gitea-rest.js';
import { type FakeGithubRest, startFakeGithubRest } from '../fake-github-rest.js';
import { type FakeGitlabRest, startFakeGitlabRest } from '../fake-gitlab-rest.js';
import { auditMark, bearer, ingest } from './contract-helpers.js';
import {
  CONTRACT_SESSION_SECRET,
  type ContractContext,
  type HttpContractOptions,
  useContractServer,
} from './harness.js';
import { sessionAs, teamWithToken, useTeamWithToken } from './team-setup.js';

const TOKEN = 'host_token_SOURCE_0123456789abcdef';
const COMMIT = 'c'.repeat(40);
const REPOSITORY = 'octo/widgets';
const SOURCE = 'export function b() {\n  return 1;\n}\n// ü\n';
/** The largest file the server under test reads. */
const MAX_BYTES = 2048;
/** Code-host reads per organisation per minute of the server under test. */
const READS_PER_MINUTE = 4;

/** Lines 3-5, 9 and 12-13 coverable; 4, 5 and 13 covered. */
const LINES = { coverable: [3, 3, 4, 1, 3, 2], covered: [0, 1, 2, 2, 1] };

/**
 * `GET /v1/executions/{id}/files/{path}/source` (docs/decisions/runs.md, "Reviewers see
 * lines"): a file the run sent lines for, read at the run's commit from the linked code host
 * (fakes of GitHub, GitLab and Gitea answering as their APIs document) through the link's
 * credential, which no answer, log or audit line shows; cached per commit and path, bounded
 * in size and in reads per organisation; no link or a failure answers why instead of text.
 */
export function fileSourceContract(options: HttpContractOptions): void {
  describe('GET /v1/executions/{id}/files/{path}/source', () => {
    const ctx = useContractServer(options, {
      allowPrivateCodeHosts: true,
      sourceFiles: { maxBytes: MAX_BYTES, readsPerMinute: READS_PER_MINUTE, timeoutMs: 2_000 },
    });
    const team = useTeamWithToken(ctx);
    let github: FakeGithubRest;
    let gitlab: FakeGitlabRest;
    let gitea: FakeGiteaRest;

    beforeAll(async () => {
      [github, gitlab, gitea] = await Promise.all([
        startFakeGithubRest(),
        startFakeGitlabRest(),
        startFakeGiteaRest(),
      ]);
      github.allowToken(TOKEN, [REPOSITORY]);
      gitlab.allowToken(TOKEN, ['group/sub/widgets']);
      gitea.allowToken(TOKEN, [REPOSITORY]);
      for (const files of [github.files, gitea.files]) {
        files.add(REPOSITORY, COMMIT, 'src/deep/b.ts', SOURCE);
        files.add(REPOSITORY, COMMIT, 'big.ts', 'x'.repeat(MAX_BYTES + 1));
        files.add(REPOSITORY, COMMIT, 'logo.ts', new Uint8Array([0x89, 0x50, 0, 0x47]));
      }
      gitlab.files.add('group/sub/widgets', COMMIT, 'src/deep/b.ts', SOURCE);
    });
    afterAll(async () => {
      await Promise.all([github?.close(), gitlab?.close(), gitea?.close()]);
    });

    const source = (id: string, path: string, token = team.token) =>
      ctx.request(`/v1/executions/${id}/files/${encodeURIComponent(path)}/source`, {
        headers: bearer(token),
      });
    const file = (path: string) => ({
      path,
      covered: 3,
      coverable: 6,
      lines: LINES,
      patch_lines: [4, 2],
    });
    /** A run of `repo` at {@link COMMIT} (or none) with lines for the given paths. */
    const runWithLines = async (
      repo: string,
      paths: string[] = ['src/deep/b.ts'],
      commit: string | null = COMMIT,
    ) => {
      const response = await ingest(ctx, team.token, {
        repo,
        branch: 'pr',
        coverage: 50,
        ...(commit === null ? {} : { commit }),
        files: [...paths.map(file), { path: 'src/c.ts', covered: 0, coverable: 2 }],
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    const link = async (
      repo: string,
      host: CodeHostKind,
      apiUrl: string,
      repository: string,
      token = TOKEN,
    ) => {
      const now = ctx.clock.now();
      await ctx.store.putRepositoryLink({
        orgId: team.org.id,
        repo,
        host,
        repository,
        apiUrl,
        credential: encryptCredential(token, repositoryLinkCredentialContext(team.org.id, repo), {
          sessionSecret: CONTRACT_SESSION_SECRET,
        }),
        credentialHint: '…cdef',
        createdBy: 'usr_contract',
        createdAt: now,
        updatedAt: now,
      });
    };
    const expectNoSecret = (c: ContractContext) => {
      expect(JSON.stringify(c.logLines())).not.toContain(TOKEN);
      expect(c.auditLines.join('\n')).not.toContain(TOKEN);
    };

    it("answers the file's text at the run's commit from GitHub, once, through the link's credential", async () => {
      await link('web', 'github', github.apiUrl, REPOSITORY);
      const id = await runWithLines('web');
      const audit = auditMark(ctx);
      const before = github.requests.length;

      const response = await source(id, 'src/deep/b.ts');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const body = await response.text();
      expect(JSON.parse(body)).toEqual({
        execution_id: id,
        path: 'src/deep/b.ts',
        commit: COMMIT,
        host: 'github',
        text: SOURCE,
        unavailable: null,
      });
      expect(body).not.toContain(TOKEN);
      expect(github.requests.slice(before)).toEqual([
        `GET /api/v3/repos/${REPOSITORY}/contents/src/deep/b.ts`,
      ]);
      expect(audit()).toEqual([
        `[audit] repository.source.read org_id=${team.org.id} repo=web commit=${COMMIT} path=src/deep/b.ts`,
      ]);
      // Cached per (repository, commit, path): a second read asks GitHub nothing.
      const again = await source(id, 'src/deep/b.ts');
      expect(((await again.json()) as { text: string }).text).toBe(SOURCE);
      expect(github.requests.length).toBe(before + 1);
      expectNoSecret(ctx);
    });

    it('reads from GitLab (the project path URL-encoded) and from Gitea', async () => {
      await link('lab', 'gitlab', gitlab.apiUrl, 'group/sub/widgets');
      await link('tea', 'gitea', gitea.apiUrl, REPOSITORY);
      const labRun = await runWithLines('lab');
      const teaRun = await runWithLines('tea');
      const lab = await source(labRun, 'src/deep/b.ts');
      expect(await lab.json()).toMatchObject({ host: 'gitlab', text: SOURCE, unavailable: null });
      expect(gitlab.requests.at(-1)).toBe(
        'GET /api/v4/projects/group%2Fsub%2Fwidgets/repository/files/src%2Fdeep%2Fb.ts/raw',
      );
      const tea = await source(teaRun, 'src/deep/b.ts');
      expect(await tea.json()).toMatchObject({ host: 'gitea', text: SOURCE, unavailable: null });
      expect(gitea.requests.at(-1)).toBe(`GET /api/v1/repos/${REPOSITORY}/raw/src/deep/b.ts`);
    });

    it('says why there is no text: no link, no commit, missing, too large, not text', async () => {
      const unlinked = await runWithLines('unlinked');
      await link('web', 'github', github.apiUrl, REPOSITORY);
      const noCommit = await runWithLines('web', ['src/deep/b.ts'], null);
      const other = await runWithLines('web', ['src/gone.ts', 'big.ts', 'logo.ts']);
      const cases: [string, string, string, string][] = [
        [unlinked, 'src/deep/b.ts', 'not_linked', 'the repository is not linked to a code host'],
        [noCommit, 'src/deep/b.ts', 'no_commit', 'the run names no commit'],
        [
          other,
          'src/gone.ts',
          'not_found',
          "GitHub has no src/gone.ts at commit ccccccc that the link's credential can read",
        ],
        [other, 'big.ts', 'too_large', 'the file is over 2 KiB'],
        [other, 'logo.ts', 'not_text', 'the file is not text'],
      ];
      for (const [id, path, reason, message] of cases) {
        const response = await source(id, path);
        expect(response.status, path).toBe(200);
        expect(await response.json()).toEqual({
          execution_id: id,
          path,
          commit: id === noCommit ? null : COMMIT,
          host: id === unlinked ? null : 'github',
          text: null,
          unavailable: { reason, message },
        });
      }
    });

    it("passes on the code host's refusals and rate limit without the credential", async () => {
      await link('web', 'github', github.apiUrl, REPOSITORY, 'host_token_UNKNOWN_0123456789');
      const id = await runWithLines('web', ['src/deep/b.ts', 'src/a.ts']);
      const refused = await source(id, 'src/deep/b.ts');
      expect(await refused.json()).toMatchObject({
        text: null,
        unavailable: {
          reason: 'host_refused',
          message: "GitHub refused the link's credential (401)",
        },
      });
      await link('web', 'github', github.apiUrl, REPOSITORY);
      github.setRateLimit(0);
      try {
        const limited = await source(id, 'src/a.ts');
        const body = (await limited.json()) as {
          unavailable: { reason: string; message: string; retry_after_seconds: number };
        };
        expect(body.unavailable.reason).toBe('host_rate_limited');
        expect(body.unavailable.message).toMatch(
          /^GitHub's rate limit for the link's credential; try again in \d+ s$/,
        );
        expect(body.unavailable.retry_after_seconds).toBeGreaterThan(3000);
      } finally {
        github.setRateLimit(5000);
      }
      expectNoSecret(ctx);
    });

    it('answers host_unreachable when the code host does not answer', async () => {
      await link('lab', 'gitlab', gitlab.apiUrl, 'group/sub/widgets');
      const id = await runWithLines('lab');
      await gitlab.setDown('refuse');
      try {
        const response = await source(id, 'src/deep/b.ts');
        expect(await response.json()).toMatchObject({
          text: null,
          unavailable: { reason: 'host_unreachable', message: 'GitLab could not be reached' },
        });
      } finally {
        await gitlab.setDown(null);
      }
    });

    it(`reads the code host at most ${READS_PER_MINUTE} times a minute per organisation, cached reads aside`, async () => {
      await link('web', 'github', github.apiUrl, REPOSITORY);
      const paths = ['p1.ts', 'p2.ts', 'p3.ts', 'p4.ts', 'p5.ts'];
      const id = await runWithLines('web', paths);
      for (const path of paths.slice(0, READS_PER_MINUTE)) {
        const response = await source(id, path);
        expect(
          ((await response.json()) as { unavailable: { reason: string } }).unavailable.reason,
        ).toBe('not_found');
      }
      const over = await source(id, 'p5.ts');
      const body = (await over.json()) as {
        unavailable: { reason: string; message: string; retry_after_seconds: number };
      };
      expect(body.unavailable.reason).toBe('rate_limited');
      expect(body.unavailable.message).toMatch(
        new RegExp(
          `^this organisation read ${READS_PER_MINUTE} files from its code host in the last minute; try again in \\d+ s$`,
        ),
      );
      // A cached answer still comes, and another organisation has its own budget.
      const cached = await source(id, 'p1.ts');
      expect(
        ((await cached.json()) as { unavailable: { reason: string } }).unavailable.reason,
      ).toBe('not_found');
    });

    it('takes the credentials and scopes of the file route: a session reads, others get 404 or 401', async () => {
      await link('web', 'github', github.apiUrl, REPOSITORY);
      const id = await runWithLines('web');
      const member = await sessionAs(ctx, team.org, `usr_source_${Date.now()}`, 'member');
      const bySession = await source(id, 'src/deep/b.ts', member);
      expect(bySession.status).toBe(200);
      expect(((await bySession.json()) as { text: string }).text).toBe(SOURCE);
      for (const path of ['src/c.ts', 'src/nowhere.ts']) {
        const response = await source(id, path);
        expect(response.status, path).toBe(404);
        expect(await response.json()).toEqual({ error: 'no line data for this file in this run' });
      }
      const other = await source(id, 'src/deep/b.ts', (await teamWithToken(ctx)).token);
      expect(other.status).toBe(404);
      expect(await other.json()).toEqual({ error: 'not found' });
      const unknown = await source(`${id}x`, 'src/deep/b.ts');
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ error: 'not found' });
      const anonymous = await ctx.request(`/v1/executions/${id}/files/src%2Fdeep%2Fb.ts/source`);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toEqual({ error: 'invalid token' });
    });
  });
}
