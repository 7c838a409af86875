import { describe, expect, it } from 'vitest';
import { auditMark, bearer, listExecutions, remoteOf, sendJson } from './contract-helpers.js';
import { type HttpContractOptions, useContractServer } from './harness.js';

/** The audit trail as a whole: one exact line per security event, never a secret. */
export function auditContract(options: HttpContractOptions): void {
  describe('audit trail', () => {
    const ctx = useContractServer(options);

    it('writes exactly one line per security event of a session and token lifecycle, in order', async () => {
      const org = await ctx.createOrganisation('team');
      const marker = auditMark(ctx);

      const created = await sendJson(ctx, 'POST', '/v1/sessions/create', ctx.serviceToken, {
        user_id: 'usr_audit',
        org_id: org.id,
      });
      const session = (await created.json()) as { session_id: string; token: string };
      const denied = await sendJson(ctx, 'POST', '/v1/sessions/create', 'not-the-service-token', {
        user_id: 'usr_audit',
        org_id: org.id,
      });
      const tokenResponse = await sendJson(ctx, 'POST', '/v1/tokens', session.token, {
        name: 'audited',
        agent_type: 'github-actions',
      });
      const token = (await tokenResponse.json()) as { id: string; secret: string };
      expect((await listExecutions(ctx, token.secret, org.slug)).status).toBe(200);
      const anonymous = await ctx.request(`/v1/executions?org=${org.slug}&repo=r`);
      const wrong = await listExecutions(ctx, `cvg_${'f'.repeat(40)}`, org.slug);
      const rotated = (await (
        await sendJson(ctx, 'POST', `/v1/tokens/${token.id}/rotate`, session.token, {})
      ).json()) as { id: string };
      expect(
        (await sendJson(ctx, 'DELETE', `/v1/tokens/${rotated.id}`, session.token)).status,
      ).toBe(204);
      expect(
        (await sendJson(ctx, 'DELETE', `/v1/sessions/${session.session_id}`, session.token)).status,
      ).toBe(204);

      expect(marker()).toEqual([
        `[audit] member.add org_id=${org.id} user_id=usr_audit role=owner`,
        `[audit] session.create user_id=usr_audit org_id=${org.id} session_id=${session.session_id}`,
        `[audit] session.create.denied reason=invalid_service_token remote=${remoteOf(ctx, denied)}`,
        `[audit] token.create org_id=${org.id} token_id=${token.id} scopes=[execute] agent_type=github-actions`,
        `[audit] auth.denied method=GET path=/v1/executions reason=missing_token remote=${remoteOf(ctx, anonymous)}`,
        `[audit] auth.denied method=GET path=/v1/executions reason=invalid_or_expired_token remote=${remoteOf(ctx, wrong)}`,
        `[audit] token.rotate old_id=${token.id} new_id=${rotated.id}`,
        `[audit] token.revoke token_id=${rotated.id}`,
        `[audit] session.delete session_id=${session.session_id}`,
      ]);
    });

    it('never writes a token, a session token or the service token into an audit line', async () => {
      const org = await ctx.createOrganisation('team');
      const session = await ctx.createSession(org);
      const token = await ctx.createToken(org);
      const marker = auditMark(ctx);

      await sendJson(ctx, 'POST', '/v1/auth/validate', null, { token: session.token });
      await sendJson(ctx, 'POST', '/v1/sessions/create', `${ctx.serviceToken}x`, {});
      await sendJson(ctx, 'POST', '/v1/sessions/create', ctx.serviceToken.slice(0, -1), {});
      const inPath = await ctx.request(`/v1/tokens/${token.secret}`, { method: 'DELETE' });
      const sessionInPath = await ctx.request(`/v1/sessions/${session.token}`, {
        method: 'DELETE',
      });

      const lines = marker();
      expect(lines.slice(-2)).toEqual([
        `[audit] auth.denied method=DELETE path=/v1/tokens/cvg_REDACTED reason=missing_token remote=${remoteOf(ctx, inPath)}`,
        `[audit] auth.denied method=DELETE path=/v1/sessions/cvgs_REDACTED reason=missing_token remote=${remoteOf(ctx, sessionInPath)}`,
      ]);
      for (const secret of [token.secret, session.token, token.sessionToken, ctx.serviceToken]) {
        const hex = secret.replace(/^cvgs?_/, '');
        for (const line of ctx.auditLines) expect(line).not.toContain(hex);
      }
    });

    it('never writes a token, a session token or the service token into the log, even from a path', async () => {
      const org = await ctx.createOrganisation('team');
      const session = await ctx.createSession(org);
      const token = await ctx.createToken(org);

      await sendJson(ctx, 'POST', '/v1/auth/validate', null, { token: token.secret });
      await sendJson(ctx, 'POST', '/v1/sessions/create', `${ctx.serviceToken}x`, {});
      await ctx.request(`/v1/tokens/${token.secret}`, { headers: bearer(session.token) });
      await ctx.request(`/v1/sessions/${session.token}`, { method: 'DELETE' });
      await ctx.request(`/v1/executions?org=${org.slug}&repo=${token.secret}`, {
        headers: bearer(token.secret),
      });
      await ctx.request(`/v1/badge/${org.slug}/${token.secret}`);

      const logged = ctx.logLines().map((line) => JSON.stringify(line));
      for (const secret of [token.secret, session.token, token.sessionToken, ctx.serviceToken]) {
        const hex = secret.replace(/^cvgs?_/, '');
        for (const line of logged) expect(line).not.toContain(hex);
      }
    });
  });
}
