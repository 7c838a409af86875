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

const TOKEN = 'github_pat_11AAAAAAA0contractTokenValue_9876wxyz';

const path = (org: string, repo: string) =>
  `/v1/repos/github-link?org=${encodeURIComponent(org)}&repo=${encodeURIComponent(repo)}`;

/** Everything the server wrote for a request: its answer, its log lines, its audit lines. */
function allText(ctx: ContractContext, body: string): string {
  return [body, ...ctx.auditLines, ...ctx.logLines().map((line) => JSON.stringify(line))].join(
    '\n',
  );
}

/** Linking a repository to a GitHub repository, with the token that sends its feedback. */
export function repositoryLinkContract(options: HttpContractOptions): void {
  describe('links of repositories to GitHub repositories', () => {
    const ctx = useContractServer(options);

    it('lets an admin link a repository: the answer and the audit line hold a hint, the store a ciphertext that opens to the token', async () => {
      const { org, ids, admin } = await team(ctx);
      const lines = auditMark(ctx);
      const put = await sendJson(ctx, 'POST', path(org.slug, 'web'), admin, {
        github_repo: 'Acme-Inc/web.site',
        token: TOKEN,
      });
      const text = await put.text();
      const expected = {
        repo: 'web',
        github_repo: 'Acme-Inc/web.site',
        api_url: 'https://api.github.com',
        token_hint: '…wxyz',
        created_by: ids.admin,
        created_at: timestampIn(ctx, 0),
        updated_at: timestampIn(ctx, 0),
        failures: [],
      };
      expect([put.status, JSON.parse(text)]).toEqual([200, expected]);
      expect(lines()).toEqual([
        `[audit] repository.link org_id=${org.id} repo=web github_repo=Acme-Inc/web.site api_url=https://api.github.com by=${ids.admin}`,
      ]);
      expect(allText(ctx, text)).not.toContain(TOKEN);
      expect(allText(ctx, text)).not.toContain(TOKEN.slice(0, 20));

      const stored = await ctx.store.findRepositoryLink(org.id, 'web');
      expect(stored?.credential).toMatch(/^v1\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
      expect(stored?.credential).not.toContain(TOKEN);
      expect(
        decryptCredential(
          stored?.credential ?? '',
          repositoryLinkCredentialContext(org.id, 'web'),
          { sessionSecret: CONTRACT_SESSION_SECRET },
        ).plaintext,
      ).toBe(TOKEN);

      const read = await sendJson(ctx, 'GET', path(org.slug, 'web'), admin);
      expect([read.status, await read.json()]).toEqual([200, expected]);
    });

    it('lets an owner replace the token and the API URL, keeping who linked it first and when; another repository is a new link', async () => {
      const { org, ids, admin, owner } = await team(ctx);
      await sendJson(ctx, 'POST', path(org.slug, 'api'), admin, {
        github_repo: 'acme/api',
        token: TOKEN,
      });
      ctx.clock.advance(90_000);
      const replaced = await sendJson(ctx, 'POST', path(org.slug, 'api'), owner, {
        github_repo: 'acme/api',
        token: 'ghs_installation0000token1234',
        api_url: 'https://github.example.com/api/v3/',
      });
      expect([replaced.status, await replaced.json()]).toEqual([
        200,
        {
          repo: 'api',
          github_repo: 'acme/api',
          api_url: 'https://github.example.com/api/v3',
          token_hint: '…1234',
          created_by: ids.admin,
          created_at: timestampIn(ctx, -90),
          updated_at: timestampIn(ctx, 0),
          failures: [],
        },
      ]);

      // Another repository: the link is the owner's, made now (its failures start empty).
      ctx.clock.advance(30_000);
      const moved = await sendJson(ctx, 'POST', path(org.slug, 'api'), owner, {
        github_repo: 'acme/api-server',
        token: 'ghs_installation0000token5678',
      });
      expect([moved.status, await moved.json()]).toEqual([
        200,
        {
          repo: 'api',
          github_repo: 'acme/api-server',
          api_url: 'https://api.github.com',
          token_hint: '…5678',
          created_by: ids.owner,
          created_at: timestampIn(ctx, 0),
          updated_at: timestampIn(ctx, 0),
          failures: [],
        },
      ]);
    });

    it('answers 403 to members and API tokens on every method, and to another organisation', async () => {
      const { org, member, owner } = await team(ctx);
      const other = await team(ctx);
      const { secret } = await ctx.createToken(org);
      const body = { github_repo: 'acme/web', token: TOKEN };
      for (const [who, credential] of [
        ['member', member],
        ['API token', secret],
      ] as const) {
        for (const method of ['GET', 'POST', 'DELETE']) {
          const response = await sendJson(
            ctx,
            method,
            path(org.slug, 'web'),
            credential,
            method === 'POST' ? body : undefined,
          );
          expect([response.status, await response.json()], `${who} ${method}`).toEqual([
            403,
            FORBIDDEN,
          ]);
        }
      }
      for (const method of ['GET', 'POST', 'DELETE']) {
        const response = await sendJson(
          ctx,
          method,
          path(other.org.slug, 'web'),
          owner,
          method === 'POST' ? body : undefined,
        );
        expect([response.status, await response.json()], `other org ${method}`).toEqual([
          403,
          FORBIDDEN,
        ]);
      }
      expect(await ctx.store.findRepositoryLink(org.id, 'web')).toBeNull();
      expect(await ctx.store.findRepositoryLink(other.org.id, 'web')).toBeNull();
    });

    it('refuses bad query parameters and bodies with 400 naming the field, storing nothing', async () => {
      const { org, admin } = await team(ctx);
      const good = { github_repo: 'acme/web', token: TOKEN };
      const cases: [string, unknown, string][] = [
        ['/v1/repos/github-link?repo=web', good, 'missing required parameter: org'],
        [`/v1/repos/github-link?org=${org.slug}`, good, 'missing required parameter: repo'],
        [path(org.slug, 'a\u0007b'), good, 'invalid parameter: repo'],
        [path(org.slug, 'web'), [], 'malformed request'],
        [path(org.slug, 'web'), { token: TOKEN }, 'invalid parameter: github_repo'],
        [path(org.slug, 'web'), { ...good, github_repo: 'acme' }, 'invalid parameter: github_repo'],
        [
          path(org.slug, 'web'),
          { ...good, github_repo: '-acme/web' },
          'invalid parameter: github_repo',
        ],
        [
          path(org.slug, 'web'),
          { ...good, github_repo: 'acme/we b' },
          'invalid parameter: github_repo',
        ],
        [
          path(org.slug, 'web'),
          { ...good, github_repo: 'acme/..' },
          'invalid parameter: github_repo',
        ],
        [path(org.slug, 'web'), { github_repo: 'acme/web' }, 'invalid parameter: token'],
        [path(org.slug, 'web'), { ...good, token: '' }, 'invalid parameter: token'],
        [path(org.slug, 'web'), { ...good, token: 'x'.repeat(256) }, 'invalid parameter: token'],
        [path(org.slug, 'web'), { ...good, token: 'ghp_abc\n' }, 'invalid parameter: token'],
        [path(org.slug, 'web'), { ...good, token: 42 }, 'invalid parameter: token'],
        [
          path(org.slug, 'web'),
          { ...good, api_url: 'http://github.example.com/api/v3' },
          'invalid parameter: api_url',
        ],
        [
          path(org.slug, 'web'),
          { ...good, api_url: 'https://user:pw@github.example.com' },
          'invalid parameter: api_url',
        ],
        [path(org.slug, 'web'), { ...good, api_url: 'github.com' }, 'invalid parameter: api_url'],
        ...['https://127.0.0.1:8443/api/v3', 'https://[::1]/api', 'https://169.254.169.254/'].map(
          (apiUrl): [string, unknown, string] => [
            path(org.slug, 'web'),
            { ...good, api_url: apiUrl },
            'invalid parameter: api_url is or resolves to a loopback, private or link-local address',
          ],
        ),
      ];
      for (const [target, body, error] of cases) {
        const response = await sendJson(ctx, 'POST', target, admin, body);
        const text = await response.text();
        expect([response.status, JSON.parse(text)], `${target} ${JSON.stringify(body)}`).toEqual([
          400,
          { error },
        ]);
        expect(text).not.toContain(TOKEN);
      }
      expect(await ctx.store.findRepositoryLink(org.id, 'web')).toBeNull();
    });

    it('takes a 255-character token, and hints at a short one with no character of it', async () => {
      const { org, admin } = await team(ctx);
      const long = await sendJson(ctx, 'POST', path(org.slug, 'long'), admin, {
        github_repo: 'acme/long',
        token: `${'t'.repeat(251)}LAST`,
      });
      expect([long.status, ((await long.json()) as { token_hint: string }).token_hint]).toEqual([
        200,
        '…LAST',
      ]);
      const short = await sendJson(ctx, 'POST', path(org.slug, 'short'), admin, {
        github_repo: 'acme/short',
        token: 'abcd1234',
      });
      expect(((await short.json()) as { token_hint: string }).token_hint).toBe('…');
    });

    it('unlinks (204, an audit line without the token; the stored row gone) and answers 404 when there is no link', async () => {
      const { org, ids, admin } = await team(ctx);
      const none = await sendJson(ctx, 'GET', path(org.slug, 'web'), admin);
      expect([none.status, await none.json()]).toEqual([404, NOT_FOUND]);
      await sendJson(ctx, 'POST', path(org.slug, 'web'), admin, {
        github_repo: 'acme/web',
        token: TOKEN,
      });
      const lines = auditMark(ctx);
      const removed = await sendJson(ctx, 'DELETE', path(org.slug, 'web'), admin);
      expect([removed.status, await removed.text()]).toEqual([204, '']);
      expect(lines()).toEqual([
        `[audit] repository.unlink org_id=${org.id} repo=web github_repo=acme/web by=${ids.admin}`,
      ]);
      expect(await ctx.store.findRepositoryLink(org.id, 'web')).toBeNull();
      const again = await sendJson(ctx, 'DELETE', path(org.slug, 'web'), admin);
      expect([again.status, await again.json()]).toEqual([404, NOT_FOUND]);
      const read = await sendJson(ctx, 'GET', path(org.slug, 'web'), admin);
      expect([read.status, await read.json()]).toEqual([404, NOT_FOUND]);
    });
  });
}
