import { describe, expect, it } from 'vitest';
import { randomSuffix } from '../fixtures.js';
import { sendJson } from './contract-helpers.js';
import { type ContractContext, type HttpContractOptions, useContractServer } from './harness.js';

function create(ctx: ContractContext, body: unknown, token: string | null = ctx.serviceToken) {
  return sendJson(ctx, 'POST', '/v1/organisations', token, body);
}

/** `POST /v1/organisations` and the whole path from an empty store to a listed execution. */
export function organisationsContract(options: HttpContractOptions): void {
  describe('organisations', () => {
    const ctx = useContractServer(options);
    // Stores may outlive a run (MySQL): every slug is new.
    const unique = (slug: string) => `${slug}-${randomSuffix()}`;

    it('creates an organisation behind the service token, with defaults and an audit line', async () => {
      const slug = unique('acme-labs');
      const response = await create(ctx, { slug });
      expect(response.status).toBe(201);
      const body = (await response.json()) as Record<string, string>;
      expect(body).toEqual({
        id: body.id,
        slug,
        name: slug,
        plan: 'free',
        created_at: ctx.clock
          .now()
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z'),
      });
      expect(body.id).toMatch(/^org_[0-9a-z]{26}$/);
      expect(ctx.auditLines.at(-1)).toBe(
        `[audit] organisation.create org_id=${body.id} slug=${slug}`,
      );
      const stored = await ctx.store.findOrganisationBySlug(slug);
      expect(stored).toMatchObject({ id: body.id, name: slug, plan: 'free' });

      const named = await create(ctx, {
        slug: unique('initech'),
        name: 'Initech Ltd',
        plan: 'team',
      });
      expect(await named.json()).toMatchObject({ name: 'Initech Ltd', plan: 'team' });
    });

    it('answers 409 {"error":"conflict"} for a taken slug, without an audit line', async () => {
      const slug = unique('twice');
      expect((await create(ctx, { slug })).status).toBe(201);
      const lines = ctx.auditLines.length;
      const again = await create(ctx, { slug, name: 'Other' });
      expect(again.status).toBe(409);
      expect(await again.json()).toEqual({ error: 'conflict' });
      expect(ctx.auditLines.length).toBe(lines);
    });

    it('refuses slugs reserved for personal organisations with a clear 400', async () => {
      for (const [slug, prefix] of [
        ['github-583231', 'github-'],
        ['gitlab-x', 'gitlab-'],
      ] as const) {
        const response = await create(ctx, { slug });
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({
          error: `reserved slug: ${prefix}... is kept for personal organisations`,
        });
      }
      expect(await ctx.store.findOrganisationBySlug('github-583231')).toBeNull();
    });

    it('refuses invalid bodies with 400 naming the field', async () => {
      const ok = unique('ok');
      const cases: [unknown, string][] = [
        [{}, 'invalid parameter: slug'],
        [{ slug: 'Acme' }, 'invalid parameter: slug'],
        [{ slug: '-acme' }, 'invalid parameter: slug'],
        [{ slug: 'acme-' }, 'invalid parameter: slug'],
        [{ slug: 'a'.repeat(65) }, 'invalid parameter: slug'],
        [{ slug: ok, name: '' }, 'invalid parameter: name'],
        [{ slug: ok, name: 'a\nb' }, 'invalid parameter: name'],
        [{ slug: ok, plan: 'gold' }, 'invalid parameter: plan'],
        ['[1]', 'malformed request'],
      ];
      for (const [body, error] of cases) {
        const response = await create(ctx, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(await response.json()).toEqual({ error });
      }
      expect(await ctx.store.findOrganisationBySlug(ok)).toBeNull();
    });

    it('answers 401 invalid token without or with a wrong service token, with an audit line', async () => {
      const sneaky = unique('sneaky');
      for (const token of [null, 'wrong', `${ctx.serviceToken}x`]) {
        const response = await create(ctx, { slug: sneaky }, token);
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual({ error: 'invalid token' });
        expect(ctx.auditLines.at(-1)).toMatch(
          /^\[audit\] organisation\.create\.denied reason=invalid_service_token remote=\S+$/,
        );
      }
      expect(await ctx.store.findOrganisationBySlug(sneaky)).toBeNull();
    });

    it('goes from an empty store to a listed execution: organisation, session, token, ingest, list', async () => {
      const slug = unique('from-scratch');
      const org = (await (await create(ctx, { slug })).json()) as { id: string };
      const session = await sendJson(ctx, 'POST', '/v1/sessions/create', ctx.serviceToken, {
        user_id: 'usr_first',
        org_id: org.id,
      });
      const { token: sessionToken } = (await session.json()) as { token: string };
      const token = await sendJson(ctx, 'POST', '/v1/tokens', sessionToken, { name: 'ci' });
      const { secret } = (await token.json()) as { secret: string };
      const ingest = await sendJson(ctx, 'POST', '/v1/executions', secret, {
        repo: 'web',
        branch: 'main',
        coverage: 84.6,
      });
      const record = await ingest.json();
      const list = await ctx.request(`/v1/executions?org=${slug}&repo=web`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      expect(await list.json()).toEqual({ executions: [record], total: 1 });
    });
  });
}
