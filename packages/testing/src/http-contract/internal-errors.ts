import { createMemoryStore, type Organisation, type Store } from '@covgate/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { bearer, listExecutions, sendJson } from './contract-helpers.js';
import { type ContractContext, type HttpContractOptions, useContractServer } from './harness.js';

/** What a failing database says: host, address and query, none of which may reach a client. */
const DATABASE_MESSAGE =
  'connect ECONNREFUSED 10.0.0.12:3306 (db-primary.internal) while running SELECT hash FROM tokens WHERE id = ?';

/** A store whose methods named in `broken` reject like a database that is down. */
function breakableStore(inner: Store, broken: ReadonlySet<string>): Store {
  return new Proxy(inner, {
    get(target, property) {
      if (typeof property === 'string' && broken.has(property)) {
        return async () => {
          throw new Error(DATABASE_MESSAGE);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Sends a request with `send` and checks the answer is the bare 500 and that the log written
 * since has the cause under `prefix`.
 */
async function expectInternalError(
  ctx: ContractContext,
  prefix: string,
  send: () => Promise<Response>,
): Promise<void> {
  const logStart = ctx.logLines().length;
  const response = await send();
  expect(response.status).toBe(500);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.headers.get('x-request-id')).toBeTruthy();
  const body = await response.text();
  expect(body).toBe('{"error":"internal error"}');
  for (const leak of [
    'ECONNREFUSED',
    '10.0.0.12',
    'db-primary',
    'SELECT',
    'Error',
    ' at ',
    '.ts',
  ]) {
    expect(body).not.toContain(leak);
  }
  const messages = ctx
    .logLines()
    .slice(logStart)
    .map((line) => line.msg);
  expect(messages).toContain(`[${prefix}] ${DATABASE_MESSAGE}`);
}

/** `POST /v1/sessions/create` of `usr_1` in `org` with the service token. */
function createSessionIn(ctx: ContractContext, org: Organisation): Promise<Response> {
  return sendJson(ctx, 'POST', '/v1/sessions/create', ctx.serviceToken, {
    user_id: 'usr_1',
    org_id: org.id,
  });
}

/** Infrastructure failures: `500 {"error":"internal error"}`, the cause only in the log. */
export function internalErrorsContract(options: HttpContractOptions): void {
  describe('internal errors', () => {
    const broken = new Set<keyof Store>();
    const ctx = useContractServer({
      ...options,
      createStore: async () =>
        breakableStore(await (options.createStore?.() ?? createMemoryStore()), broken),
    });
    beforeEach(() => broken.clear());

    it('answers exactly {"error":"internal error"} when the token store fails, with a [tokens] log line', async () => {
      const org = await ctx.createOrganisation('team');
      const token = await ctx.createToken(org);
      broken.add('findTokenById');
      const requests: (() => Promise<Response>)[] = [
        () => listExecutions(ctx, token.secret, org.slug),
        () => sendJson(ctx, 'POST', '/v1/auth/validate', token.secret),
        () => sendJson(ctx, 'POST', '/v1/auth/validate', null, { token: token.secret }),
        () => ctx.request(`/v1/tokens/${token.id}`, { headers: bearer(token.sessionToken) }),
        () => sendJson(ctx, 'DELETE', `/v1/tokens/${token.id}`, token.sessionToken),
      ];
      for (const send of requests) await expectInternalError(ctx, 'tokens', send);
    });

    it('answers GET /health/ready with 503 {"error":"not ready"} when the store fails its ping, while /health stays 200', async () => {
      const ready = await ctx.request('/health/ready');
      expect(ready.status).toBe(200);
      expect(await ready.text()).toBe('{"status":"ready"}');
      broken.add('ping');
      const notReady = await ctx.request('/health/ready');
      expect(notReady.status).toBe(503);
      expect(notReady.headers.get('content-type')).toMatch(/^application\/json/);
      expect(notReady.headers.get('x-request-id')).toBeTruthy();
      expect(await notReady.text()).toBe('{"error":"not ready"}');
      expect((await ctx.request('/health')).status).toBe(200);
    });

    it('does not count store failures as failed verifications: the token works once the store is back', async () => {
      const org = await ctx.createOrganisation('team');
      const token = await ctx.createToken(org);
      broken.add('findTokenById');
      for (let i = 0; i < 12; i++) {
        expect((await listExecutions(ctx, token.secret, org.slug)).status).toBe(500);
      }
      broken.clear();
      expect((await listExecutions(ctx, token.secret, org.slug)).status).toBe(200);
    });

    it('answers 500 with a [sessions] log line when the session store fails', async () => {
      const org = await ctx.createOrganisation();
      const session = await ctx.createSession(org);
      broken.add('insertSession');
      await expectInternalError(ctx, 'sessions', () => createSessionIn(ctx, org));

      broken.add('findSessionByTokenHash');
      await expectInternalError(ctx, 'sessions', () =>
        ctx.request('/v1/tokens', { headers: bearer(session.token) }),
      );
    });

    it('answers 500 with an [organisations] log line when the organisation store fails', async () => {
      const org = await ctx.createOrganisation();
      broken.add('findOrganisationById');
      await expectInternalError(ctx, 'organisations', () => createSessionIn(ctx, org));
    });
  });
}
