import { decryptCredential, repositoryLinkCredentialContext } from '@covgate/core/internal';
import { describe, expect, it } from 'vitest';
import { auditMark, sendJson, timestampIn } from './contract-helpers.js';
import { FORBIDDEN, NOT_FOUND } from './error-bodies.js';
import {
  CONTRACT_SESSION_SECRET,
  type ContractContext,
  type HttpContractOptions,
  useContractServer,
} from './harness.js';
import { team } from './team-setup.js';

const TOKEN = 'glpat-contractTokenValue0000wxyz';

const query = (org: string, repo: string) =>
  `org=${encodeURIComponent(org)}&repo=${encodeURIComponent(repo)}`;
const path = (org: string, repo: string) => `/v1/repos/code-host-link?${query(org, repo)}`;
const githubPath = (org: string, repo: string) => `/v1/repos/github-link?${query(org, repo)}`;

/** Everything the server wrote for a request: its answer, its log lines, its audit lines. */
function allText(ctx: ContractContext, body: string): string {
  return [body, ...ctx.auditLines, ...ctx.logLines().map((line) => JSON.stringify(line))].join(
    '\n',
  );
}

/** Linking a repository to its code host (GitHub, GitLab, Gitea) through the host-neutral route. */
export function codeHostLinkContract(options: HttpContractOptions): void {
  describe('links of repositories to their code host', () => {
    const ctx = useContractServer(options);

    it('links a GitLab project in nested groups on gitlab.com: the answer, the audit line, the sealed token; the GitHub route does not see it', async () => {
      const { org, ids, admin } = await team(ctx);
      const lines = auditMark(ctx);
      const put = await sendJson(ctx, 'POST', path(org.slug, 'web'), admin, {
        host: 'gitlab',
        repository: 'acme/platform/web.site',
        token: TOKEN,
      });
      const text = await put.text();
      const expected = {
        repo: 'web',
        host: 'gitlab',
        repository: 'acme/platform/web.site',
        api_url: 'https://gitlab.com/api/v4',
        token_hint: '…wxyz',
        created_by: ids.admin,
        created_at: timestampIn(ctx, 0),
        updated_at: timestampIn(ctx, 0),
        failures: [],
      };
      expect([put.status, JSON.parse(text)]).toEqual([200, expected]);
      expect(lines()).toEqual([
        `[audit] repository.link org_id=${org.id} repo=web host=gitlab repository=acme/platform/web.site api_url=https://gitlab.com/api/v4 by=${ids.admin}`,
      ]);
      expect(allText(ctx, text)).not.toContain(TOKEN);
      const stored = await ctx.store.findRepositoryLink(org.id, 'web');
      expect([stored?.host, stored?.repository]).toEqual(['gitlab', 'acme/platform/web.site']);
      expect(
        decryptCredential(
          stored?.credential ?? '',
          repositoryLinkCredentialContext(org.id, 'web'),
          { sessionSecret: CONTRACT_SESSION_SECRET },
        ).plaintext,
      ).toBe(TOKEN);

      const read = await sendJson(ctx, 'GET', path(org.slug, 'web'), admin);
      expect([read.status, await read.json()]).toEqual([200, expected]);
      for (const method of ['GET', 'DELETE']) {
        const github = await sendJson(ctx, method, githubPath(org.slug, 'web'), admin);
        expect([github.status, await github.json()], method).toEqual([404, NOT_FOUND]);
      }
      expect(await ctx.store.findRepositoryLink(org.id, 'web')).toEqual(stored);
    });

    it('links Gitea or Forgejo at the API URL it is given, which it requires', async () => {
      const { org, ids, owner } = await team(ctx);
      const none = await sendJson(ctx, 'POST', path(org.slug, 'web'), owner, {
        host: 'gitea',
        repository: 'acme/web',
        token: TOKEN,
      });
      expect([none.status, await none.json()]).toEqual([
        400,
        { error: 'invalid parameter: api_url is required for this host' },
      ]);
      const linked = await sendJson(ctx, 'POST', path(org.slug, 'web'), owner, {
        host: 'gitea',
        repository: 'acme/web',
        token: TOKEN,
        api_url: 'https://codeberg.org/api/v1/',
      });
      expect([linked.status, await linked.json()]).toEqual([
        200,
        {
          repo: 'web',
          host: 'gitea',
          repository: 'acme/web',
          api_url: 'https://codeberg.org/api/v1',
          token_hint: '…wxyz',
          created_by: ids.owner,
          created_at: timestampIn(ctx, 0),
          updated_at: timestampIn(ctx, 0),
          failures: [],
        },
      ]);
    });

    it('reads a GitHub link made here on the GitHub route too, audited as GitHub links are', async () => {
      const { org, ids, admin } = await team(ctx);
      const lines = auditMark(ctx);
      await sendJson(ctx, 'POST', path(org.slug, 'api'), admin, {
        host: 'github',
        repository: 'acme/api',
        token: TOKEN,
      });
      expect(lines()).toEqual([
        `[audit] repository.link org_id=${org.id} repo=api github_repo=acme/api api_url=https://api.github.com by=${ids.admin}`,
      ]);
      const github = await sendJson(ctx, 'GET', githubPath(org.slug, 'api'), admin);
      expect([github.status, await github.json()]).toMatchObject([
        200,
        { repo: 'api', github_repo: 'acme/api', api_url: 'https://api.github.com' },
      ]);
    });

    it('refuses bad hosts, repository paths, tokens and API URLs with 400 naming the field, storing nothing', async () => {
      const { org, admin, member } = await team(ctx);
      const good = { host: 'gitlab', repository: 'acme/web', token: TOKEN };
      const cases: [unknown, string][] = [
        [{ ...good, host: 'bitbucket' }, 'invalid parameter: host'],
        [{ repository: 'acme/web', token: TOKEN }, 'invalid parameter: host'],
        [{ ...good, repository: 'acme' }, 'invalid parameter: repository'],
        [{ ...good, repository: 'acme/../web' }, 'invalid parameter: repository'],
        [{ ...good, repository: 'acme/web.git' }, 'invalid parameter: repository'],
        [{ ...good, repository: 'acme//web' }, 'invalid parameter: repository'],
        [{ ...good, repository: `${'g/'.repeat(21)}web` }, 'invalid parameter: repository'],
        [
          { ...good, host: 'gitea', repository: 'a/b/c', api_url: 'https://g.example/api/v1' },
          'invalid parameter: repository',
        ],
        [{ ...good, host: 'github', repository: 'acme/..' }, 'invalid parameter: repository'],
        [{ ...good, token: 'glpat abc' }, 'invalid parameter: token'],
        [{ ...good, api_url: 'http://gitlab.example.com/api/v4' }, 'invalid parameter: api_url'],
        [
          { ...good, api_url: 'https://10.0.0.5/api/v4' },
          'invalid parameter: api_url is or resolves to a loopback, private or link-local address',
        ],
      ];
      for (const [body, error] of cases) {
        const response = await sendJson(ctx, 'POST', path(org.slug, 'web'), admin, body);
        const text = await response.text();
        expect([response.status, JSON.parse(text)], JSON.stringify(body)).toEqual([400, { error }]);
        expect(text).not.toContain(TOKEN);
      }
      for (const method of ['GET', 'POST', 'DELETE']) {
        const response = await sendJson(
          ctx,
          method,
          path(org.slug, 'web'),
          member,
          method === 'POST' ? good : undefined,
        );
        expect([response.status, await response.json()], method).toEqual([403, FORBIDDEN]);
      }
      expect(await ctx.store.findRepositoryLink(org.id, 'web')).toBeNull();
    });

    it('unlinks any host (204, an audit line naming host and path) and answers 404 when there is no link', async () => {
      const { org, ids, admin } = await team(ctx);
      await sendJson(ctx, 'POST', path(org.slug, 'web'), admin, {
        host: 'gitlab',
        repository: 'acme/web',
        token: TOKEN,
      });
      const lines = auditMark(ctx);
      const removed = await sendJson(ctx, 'DELETE', path(org.slug, 'web'), admin);
      expect([removed.status, await removed.text()]).toEqual([204, '']);
      expect(lines()).toEqual([
        `[audit] repository.unlink org_id=${org.id} repo=web host=gitlab repository=acme/web by=${ids.admin}`,
      ]);
      expect(await ctx.store.findRepositoryLink(org.id, 'web')).toBeNull();
      const again = await sendJson(ctx, 'DELETE', path(org.slug, 'web'), admin);
      expect([again.status, await again.json()]).toEqual([404, NOT_FOUND]);
    });
  });
}
