import type { Organisation } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import {
  auditMark,
  bearer,
  listExecutions,
  remoteOf,
  sendJson,
  timestampIn,
} from './contract-helpers.js';
import { FORBIDDEN, INVALID_TOKEN, NOT_FOUND } from './error-bodies.js';
import { type ContractContext, type HttpContractOptions, useContractServer } from './harness.js';

const NOT_ACTIVE = { error: 'token is not active' };
const LISTED_FIELDS = [
  'agent_type',
  'created_at',
  'grace_period_ends_at',
  'id',
  'last_used_at',
  'name',
  'scopes',
  'status',
];

interface TokenJson {
  id: string;
  name: string;
  status: string;
  scopes: string[];
  agent_type: string;
  created_at: string;
  last_used_at: string | null;
  grace_period_ends_at: string | null;
}

/** Every management route with a body that would be accepted, for a token id. */
export function managementRoutes(id: string): [method: string, path: string, body?: unknown][] {
  return [
    ['GET', '/v1/tokens'],
    ['POST', '/v1/tokens', { name: 'x' }],
    ['GET', `/v1/tokens/${id}`],
    ['PATCH', `/v1/tokens/${id}`, { name: 'x' }],
    ['DELETE', `/v1/tokens/${id}`],
    ['POST', `/v1/tokens/${id}/rotate`, {}],
  ];
}

async function listTokens(ctx: ContractContext, sessionToken: string): Promise<TokenJson[]> {
  const response = await ctx.request('/v1/tokens', { headers: bearer(sessionToken) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { tokens: TokenJson[] }).tokens;
}

async function getToken(
  ctx: ContractContext,
  sessionToken: string,
  id: string,
): Promise<TokenJson> {
  const response = await ctx.request(`/v1/tokens/${id}`, { headers: bearer(sessionToken) });
  expect(response.status).toBe(200);
  return (await response.json()) as TokenJson;
}

/**
 * The JSON of an answer that hands out a one-time secret, after checking it has exactly the
 * `fields` (in sorted order).
 */
async function secretAnswer(
  response: Response,
  fields: string[],
): Promise<Record<string, unknown> & { id: string; secret: string }> {
  const body = (await response.json()) as Record<string, unknown> & { id: string; secret: string };
  expect(Object.keys(body).sort()).toEqual(fields);
  return body;
}

function rotate(ctx: ContractContext, sessionToken: string, id: string, body?: unknown) {
  return sendJson(ctx, 'POST', `/v1/tokens/${id}/rotate`, sessionToken, body);
}

/** Token management: session-only routes under `/v1/tokens`. */
export function tokensContract(options: HttpContractOptions): void {
  describe('tokens', () => {
    const ctx = useContractServer(options);
    let org: Organisation;
    let session: string;

    const setup = async () => {
      org = await ctx.createOrganisation('team');
      session = (await ctx.createSession(org)).token;
    };
    const create = (body: unknown, credential: string = session) =>
      sendJson(ctx, 'POST', '/v1/tokens', credential, body);
    const createOk = async (body: Record<string, unknown> = { name: 'ci' }) => {
      const response = await create(body);
      expect(response.status).toBe(201);
      return (await response.json()) as { id: string; secret: string };
    };
    const works = async (secret: string) => (await listExecutions(ctx, secret, org.slug)).status;

    it('refuses an API token on every management route with 403 {"error":"forbidden"}', async () => {
      await setup();
      const token = await createOk();
      for (const [method, path, body] of managementRoutes(token.id)) {
        const response = await sendJson(ctx, method, path, token.secret, body);
        expect(response.status, `${method} ${path}`).toBe(403);
        expect(await response.json()).toEqual(FORBIDDEN);
      }
      expect(await listTokens(ctx, session)).toHaveLength(1);
      expect(await getToken(ctx, session, token.id)).toMatchObject({
        name: 'ci',
        status: 'active',
      });
    });

    it('answers 401 with a missing_token audit line on every management route without a credential', async () => {
      await setup();
      const token = await createOk();
      for (const [method, path, body] of managementRoutes(token.id)) {
        const marker = auditMark(ctx);
        const response = await sendJson(ctx, method, path, null, body);
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(await response.json()).toEqual(INVALID_TOKEN);
        expect(marker()).toEqual([
          `[audit] auth.denied method=${method} path=${path} reason=missing_token remote=${remoteOf(ctx, response)}`,
        ]);
      }
    });

    it('creates a token: 201 with its one-time secret, defaults and a token.create audit line', async () => {
      await setup();
      const marker = auditMark(ctx);
      const response = await create({ name: 'ci' });
      expect(response.status).toBe(201);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = await secretAnswer(response, [
        'agent_type',
        'created_at',
        'id',
        'name',
        'scopes',
        'secret',
        'status',
      ]);
      expect(body.id).toMatch(/^[0-9a-f]{32}$/);
      expect(body.secret).toMatch(new RegExp(`^cvg_${body.id}[0-9a-f]{8}$`));
      expect(body).toMatchObject({
        name: 'ci',
        scopes: ['execute'],
        agent_type: '',
        status: 'active',
        created_at: timestampIn(ctx, 0),
      });
      expect(marker()).toEqual([
        `[audit] token.create org_id=${org.id} token_id=${body.id} scopes=[execute] agent_type=""`,
      ]);
      expect(await works(body.secret)).toBe(200);
    });

    it('records agent_type in the token and in the audit line', async () => {
      await setup();
      const marker = auditMark(ctx);
      const response = await create({
        name: 'laptop',
        scopes: ['execute', 'execute'],
        agent_type: 'cli',
      });
      expect(response.status).toBe(201);
      const body = (await response.json()) as { id: string };
      expect(body).toMatchObject({ agent_type: 'cli', scopes: ['execute'] });
      expect(marker()).toEqual([
        `[audit] token.create org_id=${org.id} token_id=${body.id} scopes=[execute] agent_type=cli`,
      ]);
    });

    it('keeps a unicode name as sent', async () => {
      await setup();
      const name = 'déploiement 🚀 ünïcode';
      const created = await createOk({ name });
      expect((await getToken(ctx, session, created.id)).name).toBe(name);
    });

    it('refuses unknown or malformed scopes with 400 invalid parameter: scopes, creating nothing', async () => {
      await setup();
      const marker = auditMark(ctx);
      for (const scopes of [
        ['admin'],
        ['execute', 'admin'],
        ['EXECUTE'],
        [' execute'],
        [],
        'execute',
        [1],
        [null],
        {},
      ]) {
        const response = await create({ name: 'x', scopes });
        expect(response.status, JSON.stringify(scopes)).toBe(400);
        expect(await response.json()).toEqual({ error: 'invalid parameter: scopes' });
      }
      expect(marker()).toEqual([]);
      expect(await listTokens(ctx, session)).toEqual([]);
    });

    it('refuses a missing or unusable name with 400 invalid parameter: name', async () => {
      await setup();
      for (const name of [
        undefined,
        null,
        '',
        '   ',
        'a\nb',
        'tab\there',
        'x'.repeat(101),
        42,
        ['ci'],
      ]) {
        const response = await create({ name });
        expect(response.status, JSON.stringify(name)).toBe(400);
        expect(await response.json()).toEqual({ error: 'invalid parameter: name' });
      }
      const empty = await sendJson(ctx, 'POST', '/v1/tokens', session);
      expect(empty.status).toBe(400);
      expect(await empty.json()).toEqual({ error: 'invalid parameter: name' });
      expect(await listTokens(ctx, session)).toEqual([]);
    });

    it('refuses an unusable agent_type with 400 invalid parameter: agent_type', async () => {
      await setup();
      for (const agentType of ['c l i', 'a=b', 'x'.repeat(65), 42, null, 'ü']) {
        const response = await create({ name: 'x', agent_type: agentType });
        expect(response.status, JSON.stringify(agentType)).toBe(400);
        expect(await response.json()).toEqual({ error: 'invalid parameter: agent_type' });
      }
    });

    it('refuses a body that is not a JSON object with 400 malformed request', async () => {
      await setup();
      for (const body of ['[]', '"ci"', '7', '{"name": ']) {
        const response = await create(body);
        expect(response.status, body).toBe(400);
        expect(await response.json()).toEqual({ error: 'malformed request' });
      }
    });

    it('lists the organisation own tokens newest first, with exactly the documented fields and no secret', async () => {
      await setup();
      const secrets: string[] = [];
      const ids: string[] = [];
      for (const name of ['first', 'second', 'third']) {
        const created = await createOk({ name });
        secrets.push(created.secret);
        ids.push(created.id);
        ctx.clock.advance(1_000);
      }
      const foreign = await ctx.createToken(await ctx.createOrganisation());

      const response = await ctx.request('/v1/tokens', { headers: bearer(session) });
      expect(response.status).toBe(200);
      const text = await response.text();
      const body = JSON.parse(text) as { tokens: TokenJson[] };
      expect(Object.keys(body)).toEqual(['tokens']);
      expect(body.tokens.map((token) => token.id)).toEqual([...ids].reverse());
      expect(body.tokens.map((token) => token.name)).toEqual(['third', 'second', 'first']);
      for (const token of body.tokens) {
        expect(Object.keys(token).sort()).toEqual(LISTED_FIELDS);
        expect(token).toMatchObject({
          status: 'active',
          scopes: ['execute'],
          agent_type: '',
          last_used_at: null,
          grace_period_ends_at: null,
        });
        expect(token.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      }
      for (const secret of [...secrets, foreign.secret])
        expect(text).not.toContain(secret.slice(4));
      expect(text).not.toContain(foreign.id);
      expect(text).not.toMatch(/argon2|"secret"|"hash"/);
    });

    it('sets last_used_at when a token is used, touching it at most once a minute', async () => {
      await setup();
      const created = await createOk();
      const lastUsed = async () => (await getToken(ctx, session, created.id)).last_used_at;
      expect(await lastUsed()).toBeNull();

      const firstUse = timestampIn(ctx, 0);
      expect(await works(created.secret)).toBe(200);
      await expect.poll(lastUsed).toBe(firstUse);

      ctx.clock.advance(30_000);
      expect(await works(created.secret)).toBe(200);
      expect(await lastUsed()).toBe(firstUse);

      ctx.clock.advance(31_000);
      const laterUse = timestampIn(ctx, 0);
      expect(await works(created.secret)).toBe(200);
      await expect.poll(lastUsed).toBe(laterUse);
    });

    it('returns one token by id with the fields of the list', async () => {
      await setup();
      const created = await createOk({ name: 'one', agent_type: 'cli' });
      const one = await getToken(ctx, session, created.id);
      expect(Object.keys(one).sort()).toEqual(LISTED_FIELDS);
      expect(one).toEqual((await listTokens(ctx, session))[0]);
      expect(one).toMatchObject({
        id: created.id,
        name: 'one',
        agent_type: 'cli',
        status: 'active',
      });
    });

    it('answers 404 {"error":"not found"} for a foreign, unknown or malformed id on GET, PATCH, DELETE and rotate', async () => {
      await setup();
      const own = await createOk();
      const foreign = await ctx.createToken(await ctx.createOrganisation());
      const marker = auditMark(ctx);
      for (const id of [
        foreign.id,
        '0123456789abcdef0123456789abcdef',
        own.id.toUpperCase(),
        `${own.id}0`,
        own.id.slice(0, -1),
        own.secret,
        own.secret.slice(4),
        'abc',
        '%C3%A9',
        `${own.id}%20`,
      ]) {
        for (const [method, path, body] of [
          ['GET', `/v1/tokens/${id}`],
          ['PATCH', `/v1/tokens/${id}`, { name: 'stolen' }],
          ['DELETE', `/v1/tokens/${id}`],
          ['POST', `/v1/tokens/${id}/rotate`, {}],
        ] as [string, string, unknown?][]) {
          const response = await sendJson(ctx, method, path, session, body);
          expect(response.status, `${method} ${path}`).toBe(404);
          expect(await response.json()).toEqual(NOT_FOUND);
        }
      }
      expect(marker()).toEqual([]);
      const foreignList = await listTokens(ctx, foreign.sessionToken);
      expect(foreignList).toEqual([
        expect.objectContaining({ id: foreign.id, name: 'ci', status: 'active' }),
      ]);
      expect(await getToken(ctx, session, own.id)).toMatchObject({ name: 'ci', status: 'active' });
    });

    it('renames a token and changes its scopes with PATCH', async () => {
      await setup();
      const created = await createOk({ name: 'before', agent_type: 'cli' });
      const renamed = await sendJson(ctx, 'PATCH', `/v1/tokens/${created.id}`, session, {
        name: 'after',
      });
      expect(renamed.status).toBe(200);
      const body = (await renamed.json()) as TokenJson;
      expect(Object.keys(body).sort()).toEqual(LISTED_FIELDS);
      expect(body).toMatchObject({
        id: created.id,
        name: 'after',
        scopes: ['execute'],
        agent_type: 'cli',
      });
      const rescoped = await sendJson(ctx, 'PATCH', `/v1/tokens/${created.id}`, session, {
        scopes: ['execute'],
      });
      expect(await rescoped.json()).toMatchObject({ name: 'after', scopes: ['execute'] });
      expect(await getToken(ctx, session, created.id)).toMatchObject({ name: 'after' });
      expect(await works(created.secret)).toBe(200);
    });

    it('refuses an empty or invalid PATCH with 400, changing nothing', async () => {
      await setup();
      const created = await createOk({ name: 'keep' });
      for (const [body, error] of [
        [{}, 'invalid parameter: name'],
        [{ name: '' }, 'invalid parameter: name'],
        [{ name: 'x'.repeat(101) }, 'invalid parameter: name'],
        [{ scopes: ['admin'] }, 'invalid parameter: scopes'],
        [{ scopes: [] }, 'invalid parameter: scopes'],
        ['[]', 'malformed request'],
      ] as [unknown, string][]) {
        const response = await sendJson(ctx, 'PATCH', `/v1/tokens/${created.id}`, session, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(await response.json()).toEqual({ error });
      }
      expect(await getToken(ctx, session, created.id)).toMatchObject({
        name: 'keep',
        scopes: ['execute'],
      });
    });

    it('revokes a token: 204, a token.revoke audit line, and the very next use is 401', async () => {
      await setup();
      const created = await createOk();
      expect(await works(created.secret)).toBe(200);
      const marker = auditMark(ctx);
      const response = await sendJson(ctx, 'DELETE', `/v1/tokens/${created.id}`, session);
      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
      expect(marker()).toEqual([`[audit] token.revoke token_id=${created.id}`]);

      const next = await listExecutions(ctx, created.secret, org.slug);
      expect(next.status).toBe(401);
      expect(await next.json()).toEqual(INVALID_TOKEN);
      expect(ctx.auditLines.at(-1)).toBe(
        `[audit] auth.denied method=GET path=/v1/executions reason=invalid_or_expired_token remote=${remoteOf(ctx, next)}`,
      );
      expect(await getToken(ctx, session, created.id)).toMatchObject({ status: 'revoked' });

      const again = await sendJson(ctx, 'DELETE', `/v1/tokens/${created.id}`, session);
      expect(again.status).toBe(204);
      expect(marker()).toHaveLength(2);
    });

    it('rotates with a 24 h default grace: the old token works until the grace ends, then reads revoked', async () => {
      await setup();
      const old = await createOk({ name: 'deploy', agent_type: 'cli' });
      expect(await works(old.secret)).toBe(200);
      const graceEnd = timestampIn(ctx, 86_400);
      const marker = auditMark(ctx);
      const response = await rotate(ctx, session, old.id);
      expect(response.status).toBe(200);
      const body = await secretAnswer(response, [
        'grace_period_ends_at',
        'id',
        'old_token_id',
        'old_token_status',
        'secret',
      ]);
      expect(body).toMatchObject({
        old_token_id: old.id,
        old_token_status: 'rotating',
        grace_period_ends_at: graceEnd,
      });
      expect(body.id).toMatch(/^[0-9a-f]{32}$/);
      expect(body.id).not.toBe(old.id);
      expect(body.secret).toMatch(new RegExp(`^cvg_${body.id}[0-9a-f]{8}$`));
      expect(marker()).toEqual([`[audit] token.rotate old_id=${old.id} new_id=${body.id}`]);

      expect(await getToken(ctx, session, body.id)).toMatchObject({
        name: 'deploy',
        scopes: ['execute'],
        agent_type: 'cli',
        status: 'active',
        grace_period_ends_at: null,
      });
      expect(await getToken(ctx, session, old.id)).toMatchObject({
        status: 'rotating',
        grace_period_ends_at: graceEnd,
      });
      expect(await works(old.secret)).toBe(200);
      expect(await works(body.secret)).toBe(200);

      ctx.clock.advance(86_399_000);
      expect(await works(old.secret)).toBe(200);
      ctx.clock.advance(1_000);
      expect(await works(old.secret)).toBe(401);
      expect(await works(body.secret)).toBe(200);
      const fresh = (await ctx.createSession(org)).token;
      expect(await getToken(ctx, fresh, old.id)).toMatchObject({
        status: 'revoked',
        grace_period_ends_at: graceEnd,
      });
    });

    it('rotates with grace 0: the old token is invalid at once', async () => {
      await setup();
      const old = await createOk();
      expect(await works(old.secret)).toBe(200);
      const response = await rotate(ctx, session, old.id, { grace_period_seconds: 0 });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { secret: string };
      expect(body).toMatchObject({
        old_token_status: 'revoked',
        grace_period_ends_at: timestampIn(ctx, 0),
      });
      expect(await works(old.secret)).toBe(401);
      expect(await works(body.secret)).toBe(200);
      expect(await getToken(ctx, session, old.id)).toMatchObject({ status: 'revoked' });
    });

    it('accepts a grace period of exactly 604800 s', async () => {
      await setup();
      const old = await createOk();
      const response = await rotate(ctx, session, old.id, { grace_period_seconds: 604_800 });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        grace_period_ends_at: timestampIn(ctx, 604_800),
      });
    });

    it('refuses grace periods of -1, 604801, 1.5, "60" and null with 400, rotating nothing', async () => {
      await setup();
      const old = await createOk();
      const marker = auditMark(ctx);
      for (const grace of [-1, 604_801, 1.5, '60', null, 1e300]) {
        const response = await rotate(ctx, session, old.id, { grace_period_seconds: grace });
        expect(response.status, String(grace)).toBe(400);
        expect(await response.json()).toEqual({ error: 'invalid parameter: grace_period_seconds' });
      }
      const malformed = await rotate(ctx, session, old.id, '[]');
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toEqual({ error: 'malformed request' });
      expect(marker()).toEqual([]);
      expect(await listTokens(ctx, session)).toEqual([
        expect.objectContaining({ id: old.id, status: 'active', grace_period_ends_at: null }),
      ]);
    });

    it('answers 409 for rotating a rotating, revoked or grace-expired token', async () => {
      await setup();
      const rotating = await createOk();
      expect((await rotate(ctx, session, rotating.id, { grace_period_seconds: 60 })).status).toBe(
        200,
      );
      const revoked = await createOk();
      expect((await sendJson(ctx, 'DELETE', `/v1/tokens/${revoked.id}`, session)).status).toBe(204);
      const marker = auditMark(ctx);
      for (const id of [rotating.id, revoked.id]) {
        const response = await rotate(ctx, session, id);
        expect(response.status).toBe(409);
        expect(await response.json()).toEqual(NOT_ACTIVE);
      }
      ctx.clock.advance(60_000);
      const expired = await rotate(ctx, session, rotating.id);
      expect(expired.status).toBe(409);
      expect(await expired.json()).toEqual(NOT_ACTIVE);
      expect(marker()).toEqual([]);
    });
  });
}
