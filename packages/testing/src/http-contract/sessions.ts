import type { Organisation } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import {
  auditMark,
  bearer,
  escapeRegExp,
  remoteOf,
  sendJson,
  timestampIn,
} from './contract-helpers.js';
import { INVALID_TOKEN, NOT_FOUND } from './error-bodies.js';
import { type ContractContext, type HttpContractOptions, useContractServer } from './harness.js';

function createSession(ctx: ContractContext, credential: string | null, body: unknown) {
  return sendJson(ctx, 'POST', '/v1/sessions/create', credential, body);
}

function deleteSession(ctx: ContractContext, sessionId: string, credential: string | null) {
  return sendJson(ctx, 'DELETE', `/v1/sessions/${sessionId}`, credential);
}

/** A request only a live session passes: the token list of its organisation. */
function listTokens(ctx: ContractContext, sessionToken: string) {
  return ctx.request('/v1/tokens', { headers: bearer(sessionToken) });
}

function deniedLine(ctx: ContractContext, response: Response): string {
  return `[audit] session.create.denied reason=invalid_service_token remote=${remoteOf(ctx, response)}`;
}

/** Refuses every create when no service token is configured (unset or empty). */
function unconfiguredServiceTokenContract(
  options: HttpContractOptions,
  serviceToken: string | undefined,
): void {
  describe(`with SERVICE_TOKEN ${serviceToken === undefined ? 'unset' : 'empty'}`, () => {
    const ctx = useContractServer(options, { serviceToken });

    it('refuses every session create with 401 and a denied audit line', async () => {
      const org = await ctx.createOrganisation();
      for (const credential of [ctx.serviceToken, '', 'undefined', null]) {
        const marker = auditMark(ctx);
        const response = await createSession(ctx, credential, { user_id: 'usr_1', org_id: org.id });
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual(INVALID_TOKEN);
        expect(marker()).toEqual([deniedLine(ctx, response)]);
      }
    });
  });
}

/** `POST /v1/sessions/create` (behind `SERVICE_TOKEN`) and `DELETE /v1/sessions/{id}`. */
export function sessionsContract(options: HttpContractOptions): void {
  describe('sessions', () => {
    const ctx = useContractServer(options);
    let org: Organisation;
    const setup = async () => {
      org = await ctx.createOrganisation();
    };

    it('creates a session: 201 {session_id, token, user_id, org_id, role, expires_at 24 h ahead}, the first member an owner, and the audit lines', async () => {
      await setup();
      const marker = auditMark(ctx);
      const expiresAt = timestampIn(ctx, 86_400);
      const response = await createSession(ctx, ctx.serviceToken, {
        user_id: 'usr_alice',
        org_id: org.id,
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await response.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual([
        'expires_at',
        'org_id',
        'role',
        'session_id',
        'token',
        'user_id',
      ]);
      expect(body).toMatchObject({
        user_id: 'usr_alice',
        org_id: org.id,
        role: 'owner',
        expires_at: expiresAt,
      });
      expect(body.session_id).toMatch(/^ses_[0-9a-z]{26}$/);
      expect(body.token).toMatch(/^cvgs_[0-9a-f]{64}$/);
      expect(marker()).toEqual([
        `[audit] member.add org_id=${org.id} user_id=usr_alice role=owner`,
        `[audit] session.create user_id=usr_alice org_id=${org.id} session_id=${body.session_id}`,
      ]);
    });

    it('makes later users members, or joins them with the role given; a member keeps their role', async () => {
      await setup();
      const first = await createSession(ctx, ctx.serviceToken, {
        user_id: 'usr_b',
        org_id: org.id,
      });
      expect(await first.json()).toMatchObject({ role: 'owner' });
      const cases: [Record<string, unknown>, string][] = [
        [{ user_id: 'usr_c', org_id: org.id }, 'member'],
        [{ user_id: 'usr_d', org_id: org.id, role: 'admin' }, 'admin'],
        [{ user_id: 'usr_d', org_id: org.id, role: 'owner' }, 'admin'],
        [{ user_id: 'usr_b', org_id: org.id, role: 'member' }, 'owner'],
      ];
      for (const [body, role] of cases) {
        const response = await createSession(ctx, ctx.serviceToken, body);
        expect(response.status).toBe(201);
        expect(await response.json(), JSON.stringify(body)).toMatchObject({ role });
      }
      const refused = await createSession(ctx, ctx.serviceToken, {
        user_id: 'usr_e',
        org_id: org.id,
        role: 'root',
      });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ error: 'invalid parameter: role' });
      expect(await ctx.store.findMember(org.id, 'usr_e')).toBeNull();
    });

    it('ignores a ttl in the body: the lifetime is always the server one', async () => {
      await setup();
      ctx.clock.advance(7_000);
      for (const ttl of [60, 1, 0, -1, 604_800 * 4, '3600', null]) {
        const response = await createSession(ctx, ctx.serviceToken, {
          user_id: 'usr_1',
          org_id: org.id,
          ttl,
        });
        expect(response.status, `ttl ${ttl}`).toBe(201);
        expect(await response.json()).toMatchObject({ expires_at: timestampIn(ctx, 86_400) });
      }
    });

    it('refuses a wrong, absent or near-miss service token with 401 and a session.create.denied audit line', async () => {
      await setup();
      const token = ctx.serviceToken;
      const flipped = `${token.slice(0, -1)}${token.at(-1) === 'x' ? 'y' : 'x'}`;
      const headers: Record<string, string>[] = [
        {},
        bearer('wrong'),
        bearer(flipped),
        bearer(`x${token.slice(1)}`),
        bearer(token.slice(0, -1)),
        bearer(token.slice(0, 16)),
        bearer(`${token}x`),
        bearer(`${token}${token}`),
        bearer(token.toUpperCase()),
        { authorization: `Bearer ${token} x` },
        { authorization: `Basic ${token}` },
        { authorization: token },
        { authorization: 'Bearer' },
        { 'x-service-token': token },
      ];
      for (const header of headers) {
        const marker = auditMark(ctx);
        const response = await ctx.request('/v1/sessions/create', {
          method: 'POST',
          headers: { ...header, 'content-type': 'application/json' },
          body: JSON.stringify({ user_id: 'usr_1', org_id: org.id }),
        });
        expect(response.status, JSON.stringify(header)).toBe(401);
        expect(await response.json()).toEqual(INVALID_TOKEN);
        expect(marker()).toEqual([deniedLine(ctx, response)]);
      }
    });

    it('refuses API and session tokens in place of the service token', async () => {
      await setup();
      const apiToken = await ctx.createToken(org);
      for (const credential of [apiToken.secret, apiToken.sessionToken]) {
        const response = await createSession(ctx, credential, { user_id: 'usr_1', org_id: org.id });
        expect(response.status).toBe(401);
        expect(ctx.auditLines.at(-1)).toBe(deniedLine(ctx, response));
      }
    });

    it('checks the service token before reading the body', async () => {
      const response = await createSession(ctx, 'wrong', '{"user_id": ');
      expect(response.status).toBe(401);
    });

    it('answers 400 invalid parameter: org_id for an unknown organisation, creating nothing', async () => {
      await setup();
      const marker = auditMark(ctx);
      for (const orgId of ['org_01aaaaaaaaaaaaaaaaaaaaaaaa', org.id.toUpperCase(), `${org.id} `]) {
        const response = await createSession(ctx, ctx.serviceToken, {
          user_id: 'usr_1',
          org_id: orgId,
        });
        expect(response.status, orgId).toBe(400);
        expect(await response.json()).toEqual({ error: 'invalid parameter: org_id' });
      }
      expect(marker()).toEqual([]);
    });

    it('answers 400 invalid parameter: user_id for a missing or unusable user_id', async () => {
      await setup();
      for (const userId of [
        undefined,
        null,
        42,
        '',
        'usr 1',
        'usr\n1',
        'ü',
        'u'.repeat(129),
        ['usr_1'],
      ]) {
        const response = await createSession(ctx, ctx.serviceToken, {
          user_id: userId,
          org_id: org.id,
        });
        expect(response.status, JSON.stringify(userId)).toBe(400);
        expect(await response.json()).toEqual({ error: 'invalid parameter: user_id' });
      }
    });

    it('answers 400 for a body that is not a JSON object', async () => {
      for (const body of ['[]', '"x"', 'null', '7']) {
        const response = await createSession(ctx, ctx.serviceToken, body);
        expect(response.status, body).toBe(400);
        expect(((await response.json()) as { error: string }).error).toMatch(
          /^malformed request$|^invalid parameter: /,
        );
      }
    });

    it('stores only a 64-hex HMAC of the session token, never the token', async () => {
      await setup();
      const session = await ctx.createSession(org);
      const stored = await ctx.store.findSessionById(session.sessionId);
      expect(stored).not.toBeNull();
      expect(stored?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
      expect(stored?.tokenHash).not.toBe(session.token);
      expect(stored?.tokenHash).not.toBe(session.token.slice('cvgs_'.length));
      expect(JSON.stringify(stored)).not.toContain(session.token.slice('cvgs_'.length));
    });

    it('accepts the session token as Bearer on GET /v1/tokens', async () => {
      await setup();
      const session = await ctx.createSession(org);
      const response = await listTokens(ctx, session.token);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ tokens: [] });
    });

    it('expires the session exactly 24 h after creation, with an auth.denied audit line', async () => {
      await setup();
      const session = await ctx.createSession(org);
      ctx.clock.advance(86_399_000);
      expect((await listTokens(ctx, session.token)).status).toBe(200);
      ctx.clock.advance(1_000);
      const expired = await listTokens(ctx, session.token);
      expect(expired.status).toBe(401);
      expect(await expired.json()).toEqual(INVALID_TOKEN);
      expect(ctx.auditLines.at(-1)).toMatch(
        new RegExp(
          `^\\[audit\\] auth\\.denied method=GET path=/v1/tokens reason=invalid_or_expired_token remote=${escapeRegExp(remoteOf(ctx, expired))}$`,
        ),
      );
    });

    it('refuses near-miss session tokens with 401', async () => {
      await setup();
      const session = await ctx.createSession(org);
      const last = session.token.at(-1) === '0' ? '1' : '0';
      for (const bad of [
        `${session.token.slice(0, -1)}${last}`,
        session.token.slice(0, -1),
        `${session.token}0`,
        session.token.toUpperCase(),
        session.token.replace('cvgs_', 'cvg_'),
        session.token.slice('cvgs_'.length),
      ]) {
        const response = await listTokens(ctx, bad);
        expect(response.status, bad).toBe(401);
        expect(await response.json()).toEqual(INVALID_TOKEN);
      }
    });

    /**
     * Deletes a new session of `org` with `credential` (else the session's own token) and
     * checks the 204 and its `session.delete` audit line; returns the session and the answer.
     */
    const logOut = async (credential?: string) => {
      const session = await ctx.createSession(org);
      const marker = auditMark(ctx);
      const response = await deleteSession(ctx, session.sessionId, credential ?? session.token);
      expect(response.status).toBe(204);
      expect(marker()).toEqual([`[audit] session.delete session_id=${session.sessionId}`]);
      return { session, response };
    };

    it('logs out with the session own token: 204, a session.delete audit line, then 401', async () => {
      await setup();
      const { session, response } = await logOut();
      expect(await response.text()).toBe('');
      expect(await ctx.store.findSessionById(session.sessionId)).toBeNull();
      const after = await listTokens(ctx, session.token);
      expect(after.status).toBe(401);
      expect(await after.json()).toEqual(INVALID_TOKEN);
      expect((await deleteSession(ctx, session.sessionId, session.token)).status).toBe(401);
    });

    it('logs out any session with the service token: 204, then 404 for the same id', async () => {
      await setup();
      const { session } = await logOut(ctx.serviceToken);
      expect((await listTokens(ctx, session.token)).status).toBe(401);
      const again = await deleteSession(ctx, session.sessionId, ctx.serviceToken);
      expect(again.status).toBe(404);
      expect(await again.json()).toEqual(NOT_FOUND);
    });

    it('answers 404 to a session deleting another session, which survives', async () => {
      await setup();
      const victim = await ctx.createSession(org, 'usr_victim');
      const sameOrg = await ctx.createSession(org, 'usr_other');
      const otherOrg = await ctx.createSession(await ctx.createOrganisation());
      const marker = auditMark(ctx);
      for (const attacker of [sameOrg, otherOrg]) {
        const response = await deleteSession(ctx, victim.sessionId, attacker.token);
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual(NOT_FOUND);
      }
      expect(marker()).toEqual([]);
      expect((await listTokens(ctx, victim.token)).status).toBe(200);
      expect(await ctx.store.findSessionById(victim.sessionId)).not.toBeNull();
    });

    it('answers 404 for an unknown session id and 401 without a credential', async () => {
      await setup();
      const session = await ctx.createSession(org);
      const unknown = await deleteSession(ctx, 'ses_01aaaaaaaaaaaaaaaaaaaaaaaa', ctx.serviceToken);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual(NOT_FOUND);
      const anonymous = await deleteSession(ctx, session.sessionId, null);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toEqual(INVALID_TOKEN);
      expect(ctx.auditLines.at(-1)).toBe(
        `[audit] auth.denied method=DELETE path=/v1/sessions/${session.sessionId} reason=missing_token remote=${remoteOf(ctx, anonymous)}`,
      );
      expect((await listTokens(ctx, session.token)).status).toBe(200);
    });

    it('refuses logout with an API token (403) and keeps the session', async () => {
      await setup();
      const { secret } = await ctx.createToken(org);
      const target = await ctx.createSession(org);
      const response = await deleteSession(ctx, target.sessionId, secret);
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ error: 'forbidden' });
      expect((await listTokens(ctx, target.token)).status).toBe(200);
    });

    unconfiguredServiceTokenContract(options, undefined);
    unconfiguredServiceTokenContract(options, '');

    describe('with sessionLifetimeSeconds 3600', () => {
      const short = useContractServer(options, { sessionLifetimeSeconds: 3600 });

      it('sets expires_at one hour ahead and expires the session then', async () => {
        const shortOrg = await short.createOrganisation();
        const response = await createSession(short, short.serviceToken, {
          user_id: 'usr_1',
          org_id: shortOrg.id,
          ttl: 86_400,
        });
        const body = (await response.json()) as { token: string; expires_at: string };
        expect(body.expires_at).toBe(timestampIn(short, 3600));
        short.clock.advance(3_599_000);
        expect((await listTokens(short, body.token)).status).toBe(200);
        short.clock.advance(1_000);
        expect((await listTokens(short, body.token)).status).toBe(401);
      });
    });
  });
}
