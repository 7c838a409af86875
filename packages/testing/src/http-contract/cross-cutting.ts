import { describe, expect, it } from 'vitest';
import { bearerJson, type HttpContractOptions, useContractServer } from './harness.js';

/** Rules for all routes: health, request ids, routing errors, bodies, CORS, access log. */
export function crossCuttingContract(options: HttpContractOptions): void {
  describe('cross-cutting rules', () => {
    const ctx = useContractServer(options);

    it('answers GET /health with 200 {"status":"ok"} as JSON', async () => {
      const response = await ctx.request('/health');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ status: 'ok' });
    });

    it('answers GET /health/ready with 200 {"status":"ready"} as JSON', async () => {
      const response = await ctx.request('/health/ready');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.text()).toBe('{"status":"ready"}');
    });

    it("answers GET /health/metrics with the outbox's three gauges in Prometheus's text format", async () => {
      const response = await ctx.request('/health/metrics');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const lines = (await response.text()).split('\n');
      // The values depend on what other tests left in a shared database: their shape does not.
      const gauges = ['pending', 'oldest_pending_age_seconds', 'failed'].map(
        (name) => `covgate_outbox_${name}`,
      );
      expect(lines.filter((line) => line.startsWith('# TYPE'))).toEqual(
        gauges.map((name) => `# TYPE ${name} gauge`),
      );
      expect(lines.filter((line) => !line.startsWith('#'))).toEqual([
        ...gauges.map((name) => expect.stringMatching(new RegExp(`^${name} \\d+$`))),
        '',
      ]);
      expect(lines.filter((line) => line.startsWith('# HELP'))).toHaveLength(3);
    });

    it('echoes a well-formed X-Request-ID', async () => {
      const response = await ctx.request('/health', {
        headers: { 'x-request-id': 'abc.DEF_1:2-3' },
      });
      expect(response.headers.get('x-request-id')).toBe('abc.DEF_1:2-3');
    });

    it('replaces an X-Request-ID with forbidden characters or over 128 characters', async () => {
      for (const bad of ['has space', 'a'.repeat(129), 'semi;colon', '']) {
        const response = await ctx.request('/health', { headers: { 'x-request-id': bad } });
        const id = response.headers.get('x-request-id');
        expect(id).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
        expect(id).not.toBe(bad);
      }
    });

    it('puts an X-Request-ID on errors and preflights too', async () => {
      for (const response of [
        await ctx.request('/v1/nope'),
        await ctx.request('/v1/executions'),
        await ctx.request('/health', { method: 'OPTIONS' }),
      ]) {
        expect(response.headers.get('x-request-id')).toBeTruthy();
      }
    });

    it('answers an unknown path with 404 {"error":"not found"}', async () => {
      const response = await ctx.request('/v1/unknown');
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: 'not found' });
    });

    it('answers a wrong method with 405 and an Allow header', async () => {
      const response = await ctx.request('/health', { method: 'DELETE' });
      expect(response.status).toBe(405);
      expect(await response.json()).toEqual({ error: 'method not allowed' });
      expect(response.headers.get('allow')).toContain('GET');
    });

    it('refuses a non-JSON body with 415 {"error":"unsupported media type"}', async () => {
      const response = await ctx.request('/v1/sessions/create', {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.serviceToken}`, 'content-type': 'text/plain' },
        body: 'user_id=1',
      });
      expect(response.status).toBe(415);
      expect(await response.json()).toEqual({ error: 'unsupported media type' });
    });

    it('accepts application/json with a charset parameter', async () => {
      const org = await ctx.createOrganisation();
      const response = await ctx.request('/v1/sessions/create', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ctx.serviceToken}`,
          'content-type': 'application/json; charset=utf-8',
        },
        body: JSON.stringify({ user_id: 'usr_1', org_id: org.id }),
      });
      expect(response.status).toBe(201);
    });

    it('refuses unparsable JSON with 400 {"error":"malformed request"}', async () => {
      const response = await ctx.request('/v1/sessions/create', {
        method: 'POST',
        headers: bearerJson(ctx.serviceToken),
        body: '{"user_id": ',
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: 'malformed request' });
    });

    it('refuses a body over 1 MiB with 413 {"error":"payload too large"}', async () => {
      const response = await ctx.request('/v1/sessions/create', {
        method: 'POST',
        headers: bearerJson(ctx.serviceToken),
        body: JSON.stringify({ user_id: 'x'.repeat(1024 * 1024 + 10) }),
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({ error: 'payload too large' });
    });

    /** A session-create body of exactly `size` bytes (unknown fields are ignored). */
    const sessionBodyOf = (orgId: string, size: number): string => {
      const base = JSON.stringify({ user_id: 'usr_1', org_id: orgId, pad: '' });
      return base.replace('"pad":""', `"pad":"${'x'.repeat(size - base.length)}"`);
    };

    it('accepts a JSON body of exactly 64 KiB and refuses 64 KiB + 1 byte with 413', async () => {
      const org = await ctx.createOrganisation();
      const send = (body: string) =>
        ctx.request('/v1/sessions/create', {
          method: 'POST',
          headers: bearerJson(ctx.serviceToken),
          body,
        });

      const atLimit = await send(sessionBodyOf(org.id, 64 * 1024));
      const over = await send(sessionBodyOf(org.id, 64 * 1024 + 1));

      expect(atLimit.status).toBe(201);
      expect(over.status).toBe(413);
      expect(await over.json()).toEqual({ error: 'payload too large' });
    });

    it('accepts JSON nested 16 deep and refuses 17 deep with 400 {"error":"malformed request"}', async () => {
      const org = await ctx.createOrganisation();
      // The object itself is level 1, so 15 arrays inside make 16.
      const nested = (arrays: number) =>
        `{"user_id":"usr_1","org_id":"${org.id}","extra":${'['.repeat(arrays)}"[{"${']'.repeat(arrays)}}`;
      const send = (body: string) =>
        ctx.request('/v1/sessions/create', {
          method: 'POST',
          headers: bearerJson(ctx.serviceToken),
          body,
        });

      const deepest = await send(nested(15));
      const tooDeep = await send(nested(16));

      expect(deepest.status).toBe(201);
      expect(tooDeep.status).toBe(400);
      expect(await tooDeep.json()).toEqual({ error: 'malformed request' });
    });

    it('answers 1 MiB of nested [ on /v1/auth/validate with 413, and 64 KiB of it with 400', async () => {
      const send = (body: string) =>
        ctx.request('/v1/auth/validate', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });

      const mebibyte = await send('['.repeat(1024 * 1024));
      const limit = await send('['.repeat(64 * 1024));

      expect(mebibyte.status).toBe(413);
      expect(await mebibyte.json()).toEqual({ error: 'payload too large' });
      expect(limit.status).toBe(400);
      expect(await limit.json()).toEqual({ error: 'malformed request' });
    });

    it('sets Vary: Origin on every response and CORS headers only for listed origins', async () => {
      const allowed = await ctx.request('/health', { headers: { origin: ctx.allowedOrigin } });
      expect(allowed.headers.get('vary')).toContain('Origin');
      expect(allowed.headers.get('access-control-allow-origin')).toBe(ctx.allowedOrigin);
      expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');

      for (const origin of [
        'https://evil.example.com',
        `${ctx.allowedOrigin}.evil.com`,
        `${ctx.allowedOrigin}/`,
        'null',
        ctx.allowedOrigin.toUpperCase(),
      ]) {
        const response = await ctx.request('/health', { headers: { origin } });
        expect(response.headers.get('vary')).toContain('Origin');
        expect(response.headers.get('access-control-allow-origin')).toBeNull();
      }
      const none = await ctx.request('/health');
      expect(none.headers.get('vary')).toContain('Origin');
      expect(none.headers.get('access-control-allow-origin')).toBeNull();
    });

    it("refuses a cookie session's write from an origin not listed, naming the origin and ALLOWED_ORIGINS", async () => {
      const org = await ctx.createOrganisation();
      const session = await ctx.createSession(org);
      const create = (headers: Record<string, string>) =>
        ctx.request('/v1/tokens', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            cookie: `covgate_session=${session.token}`,
            ...headers,
          },
          body: JSON.stringify({ name: 'from another origin' }),
        });
      const foreign = await create({ origin: 'http://127.0.0.1:8080' });
      expect(foreign.status).toBe(403);
      expect(await foreign.json()).toEqual({
        error: 'origin http://127.0.0.1:8080 is not allowed: add it to ALLOWED_ORIGINS',
      });
      expect(ctx.logLines().map((line) => line.msg)).toContain(
        '[csrf] refused POST /v1/tokens: origin http://127.0.0.1:8080 is not allowed: add it to ALLOWED_ORIGINS',
      );
      const missing = await create({});
      expect(missing.status).toBe(403);
      expect(await missing.json()).toEqual({
        error:
          'missing Origin header: a write with a session cookie needs an origin listed in ALLOWED_ORIGINS',
      });
      expect((await create({ origin: ctx.allowedOrigin })).status).toBe(201);
    });

    it('never answers Access-Control-Allow-Origin: *', async () => {
      const response = await ctx.request('/v1/executions', { headers: { origin: '*' } });
      expect(response.headers.get('access-control-allow-origin')).not.toBe('*');
    });

    it('answers preflights with 204 and no body, CORS headers only for allowed origins', async () => {
      const allowed = await ctx.request('/v1/tokens', {
        method: 'OPTIONS',
        headers: {
          origin: ctx.allowedOrigin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      expect(allowed.status).toBe(204);
      expect(await allowed.text()).toBe('');
      expect(allowed.headers.get('access-control-allow-origin')).toBe(ctx.allowedOrigin);
      expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
      expect(allowed.headers.get('access-control-allow-headers')).toContain('authorization');

      const denied = await ctx.request('/v1/tokens', {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' },
      });
      expect(denied.status).toBe(204);
      expect(denied.headers.get('access-control-allow-origin')).toBeNull();
      expect(denied.headers.get('access-control-allow-methods')).toBeNull();
      expect(denied.headers.get('vary')).toContain('Origin');
    });

    it('writes one access-log line per request without query string or credentials', async () => {
      const secret = `cvg_${'a'.repeat(40)}`;
      const before = ctx.logLines().length;
      const response = await ctx.request('/v1/executions?org=o&repo=r&token=leak', {
        headers: {
          authorization: `Bearer ${secret}`,
          'x-request-id': 'log-line-check',
          'user-agent': 'contract-agent',
          cookie: 'covgate_session=cvgs_secret',
        },
      });
      expect(response.status).toBe(401);
      const lines = ctx
        .logLines()
        .slice(before)
        .filter((line) => line.requestId === 'log-line-check');
      expect(lines).toHaveLength(1);
      const line = lines[0] as Record<string, unknown>;
      expect(line).toMatchObject({
        method: 'GET',
        path: '/v1/executions',
        status: 401,
        userAgent: 'contract-agent',
      });
      expect(typeof line.time).toBe('number');
      expect(typeof line.durationMs).toBe('number');
      expect(typeof line.remoteAddress).toBe('string');
      const serialised = JSON.stringify(ctx.logLines());
      expect(serialised).not.toContain(secret);
      expect(serialised).not.toContain('leak');
      expect(serialised).not.toContain('cvgs_secret');
    });
  });
}
