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
import { INVALID_TOKEN, MALFORMED } from './error-bodies.js';
import { type HttpContractOptions, useContractServer } from './harness.js';

/** `POST /v1/auth/validate`: token from the Bearer header or the body `{"token"}`. */
export function authValidateContract(options: HttpContractOptions): void {
  describe('POST /v1/auth/validate', () => {
    const ctx = useContractServer(options);
    let org: Organisation;
    let token: { id: string; secret: string; sessionToken: string };

    const setup = async () => {
      org = await ctx.createOrganisation('team');
      token = await ctx.createToken(org);
    };
    /** What the token made by `setup()` validates to: its organisation, scopes and no expiry. */
    const validAnswer = () => ({
      valid: true,
      org_id: org.id,
      org: org.slug,
      token_id: token.id,
      scopes: ['execute'],
      expires_at: null,
    });
    const validate = (credential: string | null, body?: unknown) =>
      sendJson(ctx, 'POST', '/v1/auth/validate', credential, body);
    /**
     * Sends `credential` as a Bearer token, then in the body, and checks both answers are
     * 401 invalid token; returns them (sent before either is checked).
     */
    const expectInvalidEitherWay = async (credential: string): Promise<Response[]> => {
      const responses = [await validate(credential), await validate(null, { token: credential })];
      for (const response of responses) {
        expect(response.status, credential).toBe(401);
        expect(await response.json()).toEqual(INVALID_TOKEN);
      }
      return responses;
    };
    const deniedLine = (response: Response, reason: string) =>
      new RegExp(
        `^\\[audit\\] auth\\.denied method=POST path=/v1/auth/validate reason=${reason} remote=${escapeRegExp(remoteOf(ctx, response))}$`,
      );

    it('answers 200 with the organisation, token id, scopes and a null expiry for a Bearer token', async () => {
      await setup();
      const response = await validate(token.secret);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual(validAnswer());
    });

    it('answers the same for a token sent in the body as {"token": ...}', async () => {
      await setup();
      const response = await validate(null, { token: token.secret });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(validAnswer());
    });

    it('answers expires_at = the end of the grace period for a rotating token', async () => {
      await setup();
      const graceEnd = timestampIn(ctx, 3600);
      const rotate = await sendJson(
        ctx,
        'POST',
        `/v1/tokens/${token.id}/rotate`,
        token.sessionToken,
        {
          grace_period_seconds: 3600,
        },
      );
      expect(rotate.status).toBe(200);
      const rotated = (await rotate.json()) as { id: string; secret: string };

      const old = await validate(token.secret);
      expect(old.status).toBe(200);
      expect(await old.json()).toMatchObject({ token_id: token.id, expires_at: graceEnd });
      const fresh = await validate(null, { token: rotated.secret });
      expect(await fresh.json()).toMatchObject({ token_id: rotated.id, expires_at: null });
    });

    it('answers 401 {"error":"invalid token"} with an audit line for unknown, wrong-secret and malformed tokens', async () => {
      await setup();
      const last = token.secret.at(-1) === '0' ? '1' : '0';
      for (const bad of [
        `cvg_${'0'.repeat(40)}`,
        `${token.secret.slice(0, -1)}${last}`,
        token.secret.toUpperCase(),
        token.secret.slice(0, -1),
        `${token.secret}0`,
        token.secret.replace('cvg_', 'cvx_'),
        'garbage',
      ]) {
        for (const response of await expectInvalidEitherWay(bad)) {
          expect(ctx.auditLines.at(-1)).toMatch(deniedLine(response, 'invalid_or_expired_token'));
        }
      }
    });

    it('answers 401 for a revoked token at once, in the header and in the body', async () => {
      await setup();
      expect((await validate(token.secret)).status).toBe(200);
      const revoke = await sendJson(ctx, 'DELETE', `/v1/tokens/${token.id}`, token.sessionToken);
      expect(revoke.status).toBe(204);
      await expectInvalidEitherWay(token.secret);
    });

    it('answers 401 for a rotated token once its grace period is over', async () => {
      await setup();
      await sendJson(ctx, 'POST', `/v1/tokens/${token.id}/rotate`, token.sessionToken, {
        grace_period_seconds: 60,
      });
      ctx.clock.advance(59_000);
      expect((await validate(token.secret)).status).toBe(200);
      ctx.clock.advance(1_000);
      const expired = await validate(token.secret);
      expect(expired.status).toBe(401);
      expect(await expired.json()).toEqual(INVALID_TOKEN);
      expect(ctx.auditLines.at(-1)).toMatch(deniedLine(expired, 'invalid_or_expired_token'));
    });

    it('answers 401 with reason=missing_token when neither header nor body holds a token', async () => {
      const response = await validate(null);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(INVALID_TOKEN);
      expect(ctx.auditLines.at(-1)).toMatch(deniedLine(response, 'missing_token'));
    });

    it('answers 401 for a session token, in the header or in the body', async () => {
      await setup();
      await expectInvalidEitherWay(token.sessionToken);
    });

    it('answers 400 {"error":"malformed request"} for a body that is not exactly {"token": string}, even beside a valid Bearer', async () => {
      await setup();
      const bodies: unknown[] = [
        '[]',
        JSON.stringify(token.secret),
        'null',
        '42',
        'true',
        { token: 123 },
        { token: null },
        { token: [token.secret] },
        { token: { value: token.secret } },
        { token: token.secret, extra: 1 },
        { token: token.secret, org: org.slug },
        { Token: token.secret },
        '{"token": ',
        `{"token":"${token.secret}"}{}`,
      ];
      for (const body of bodies) {
        for (const credential of [null, token.secret]) {
          const response = await validate(credential, body);
          expect(
            response.status,
            `${JSON.stringify(body)} with ${credential ? 'Bearer' : 'no header'}`,
          ).toBe(400);
          expect(await response.json()).toEqual(MALFORMED);
        }
      }
    });

    it('validates the Bearer token when the body is the empty object {}', async () => {
      await setup();
      const response = await validate(token.secret, {});
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(validAnswer());
    });

    it('answers {} without an Authorization header like no body: 401 missing_token', async () => {
      await setup();
      const marker = auditMark(ctx);
      const response = await validate(null, {});
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual(INVALID_TOKEN);
      expect(marker()).toHaveLength(1);
      expect(marker()[0]).toMatch(deniedLine(response, 'missing_token'));
    });

    it('answers 401, never 500 or 200, for a body token with spaces, control characters or non-ASCII', async () => {
      await setup();
      const marker = auditMark(ctx);
      for (const bad of [
        '',
        ` ${token.secret}`,
        `${token.secret} `,
        `${token.secret}\n`,
        `${token.secret.slice(0, 20)}\n${token.secret.slice(20)}`,
        `${token.secret}\u0000`,
        `cvg_${'é'.repeat(40)}`,
        `${token.secret.slice(0, -1)}\u0660`,
      ]) {
        const response = await validate(null, { token: bad });
        expect(response.status, JSON.stringify(bad)).toBe(401);
        expect(await response.json()).toEqual(INVALID_TOKEN);
      }
      expect(marker()).toHaveLength(8);
      for (const line of marker()) expect(line).toContain('reason=invalid_or_expired_token');
    });

    it('reads the token from the body only when no Authorization header is sent', async () => {
      await setup();
      const other = await ctx.createToken(org);
      const response = await ctx.request('/v1/auth/validate', {
        method: 'POST',
        headers: { ...bearer(other.secret), 'content-type': 'application/json' },
        body: JSON.stringify({ token: token.secret }),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ token_id: other.id });
    });
  });
}
