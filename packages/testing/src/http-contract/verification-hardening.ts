import { createTokenHasher, type TokenHasher } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { guessAt, wrongSecretOf } from '../test-tokens.js';
import { auditMark, remoteOf } from './contract-helpers.js';
import { INVALID_TOKEN } from './error-bodies.js';
import { type ContractContext, type HttpContractOptions, useContractServer } from './harness.js';

/** Every peer the suite connects from: IPv4 and IPv6 loopback. */
const LOOPBACK = ['127.0.0.1', '::1'];

/** A cheap hasher that counts verifications and can make each of them slow. */
function countingHasher(delayMs = 0): TokenHasher & { verifications: number } {
  const inner = createTokenHasher({ memoryCost: 1024, timeCost: 1, pepper: 'hardening-pepper' });
  const hasher = {
    verifications: 0,
    hash: (token: string) => inner.hash(token),
    async verify(hash: string, token: string) {
      hasher.verifications += 1;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return inner.verify(hash, token);
    },
  };
  return hasher;
}

/** A random-looking API token with its own id (`cvg_` + 40 hex). */
function randomToken(i: number): string {
  return `cvg_${i.toString(16).padStart(8, '0')}${'7f'.repeat(16)}`;
}

/** `POST /v1/auth/validate` with a Bearer token, sent through a proxy for `client`. */
function validateAs(ctx: ContractContext, token: string, forwardedFor?: string) {
  return ctx.request('/v1/auth/validate', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }),
    },
  });
}

/** Checks `POST /v1/auth/validate` of `token` through a proxy for `forwardedFor` is 401 invalid token. */
async function expectRefusedAs(
  ctx: ContractContext,
  token: string,
  forwardedFor: string,
): Promise<void> {
  const response = await validateAs(ctx, token, forwardedFor);
  expect(response.status).toBe(401);
  expect(await response.json()).toEqual(INVALID_TOKEN);
}

/** The log messages of the server that start with `prefix`. */
function messages(ctx: ContractContext, prefix: string): string[] {
  return ctx
    .logLines()
    .map((line) => String(line.msg))
    .filter((msg) => msg.startsWith(prefix));
}

/**
 * Issue 13, problems 1-3: clients behind a trusted proxy, lock-out resistance, atomic
 * throttling and the cap on concurrent argon2 verifications, over a real socket.
 */
export function verificationHardeningContract(options: HttpContractOptions): void {
  describe('failed-verification hardening', () => {
    describe('without TRUST_PROXY', () => {
      const ctx = useContractServer(options);

      it('ignores X-Forwarded-For and warns once that a proxy seems to be in front', async () => {
        const org = await ctx.createOrganisation('team');
        const { secret } = await ctx.createToken(org);
        const first = await validateAs(ctx, secret, '198.51.100.1');
        const second = await validateAs(ctx, secret, '198.51.100.2');
        expect(first.status).toBe(200);
        expect(second.status).toBe(200);
        const peer = remoteOf(ctx, first);
        expect(LOOPBACK.map((address) => peer.endsWith(address)).includes(true)).toBe(true);
        expect(remoteOf(ctx, second)).toBe(peer);
        expect(messages(ctx, '[proxy]')).toEqual([
          `[proxy] request from private address ${peer} with X-Forwarded-For/Forwarded but TRUST_PROXY is not set: forwarded headers are ignored, so every client behind this proxy shares its address (and its failed-verification throttle); set TRUST_PROXY to the proxy's address or range`,
        ]);
      });
    });

    describe('behind a trusted proxy (TRUST_PROXY = loopback)', () => {
      const hasher = countingHasher();
      const ctx = useContractServer(options, { trustProxy: LOOPBACK, tokenHasher: hasher });

      it('takes the right-most X-Forwarded-For entry that is not a trusted proxy as the client', async () => {
        const marker = auditMark(ctx);
        const response = await validateAs(
          ctx,
          randomToken(1),
          '203.0.113.50, 198.51.100.7, 127.0.0.1',
        );
        expect(response.status).toBe(401);
        expect(remoteOf(ctx, response)).toBe('198.51.100.7');
        expect(marker()).toEqual([
          '[audit] auth.denied method=POST path=/v1/auth/validate reason=invalid_or_expired_token remote=198.51.100.7',
        ]);
        expect(messages(ctx, '[proxy]')).toEqual([]);
      });

      it('keeps serving other clients of the proxy when one address is blocked after 30 failures', async () => {
        const org = await ctx.createOrganisation('team');
        const { secret } = await ctx.createToken(org);
        for (let i = 0; i < 30; i++) {
          const response = await validateAs(ctx, randomToken(100 + i), '198.51.100.66');
          expect(response.status).toBe(401);
        }
        await expectRefusedAs(ctx, secret, '198.51.100.66');
        const other = await validateAs(ctx, secret, '198.51.100.67');
        expect(other.status).toBe(200);
        expect(messages(ctx, '[ratelimit] verification blocked remote=198.51.100.66')).toEqual([
          '[ratelimit] verification blocked remote=198.51.100.66 for 300 s: 30 failed verifications within 60 s',
        ]);
      });

      it('keeps a token working from the address it was verified from while its id is blocked for others', async () => {
        const org = await ctx.createOrganisation('team');
        const { id, secret } = await ctx.createToken(org);
        expect((await validateAs(ctx, secret, '203.0.113.7')).status).toBe(200);
        ctx.clock.advance(11_000); // past the verified-token cache
        for (let i = 0; i < 12; i++) {
          const guess = await validateAs(ctx, wrongSecretOf(secret), `198.51.100.${120 + i}`);
          expect(guess.status).toBe(401);
        }
        await expectRefusedAs(ctx, secret, '203.0.113.8');
        const owner = await validateAs(ctx, secret, '203.0.113.7');
        expect(owner.status).toBe(200);
        expect(await owner.json()).toMatchObject({ valid: true, token_id: id });
        expect(messages(ctx, `[ratelimit] verification blocked token_id=${id}`)).toEqual([
          `[ratelimit] verification blocked token_id=${id} for 300 s: 10 failed verifications within 60 s`,
        ]);
      });

      it("keeps its owner's token working from a shared address that 30 unknown tokens blocked, cached and uncached", async () => {
        const nat = '198.51.100.90';
        const org = await ctx.createOrganisation('team');
        const owner = await ctx.createToken(org);
        const other = await ctx.createToken(org);
        expect((await validateAs(ctx, owner.secret, nat)).status).toBe(200);
        for (let i = 0; i < 30; i++) {
          expect((await validateAs(ctx, randomToken(3000 + i), nat)).status).toBe(401);
        }
        expect(messages(ctx, `[ratelimit] verification blocked remote=${nat}`)).toEqual([
          `[ratelimit] verification blocked remote=${nat} for 300 s: 30 failed verifications within 60 s`,
        ]);
        const cached = await validateAs(ctx, owner.secret, nat);
        expect(cached.status).toBe(200);
        ctx.clock.advance(11_000); // past the verified-token cache
        const uncached = await validateAs(ctx, owner.secret, nat);
        expect(uncached.status).toBe(200);
        expect(await uncached.json()).toMatchObject({ valid: true, token_id: owner.id });
        // Tokens not verified from this address stay refused there: another valid token, a
        // guess at the owner's id, an unknown token.
        for (const refused of [other.secret, wrongSecretOf(owner.secret), randomToken(3100)]) {
          await expectRefusedAs(ctx, refused, nat);
        }
        expect((await validateAs(ctx, other.secret, '198.51.100.91')).status).toBe(200);
      });

      it('runs at most 10 argon2 verifications for 200 concurrent guesses on one token id', async () => {
        const org = await ctx.createOrganisation('team');
        const { secret } = await ctx.createToken(org);
        const before = hasher.verifications;
        const responses = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            validateAs(ctx, guessAt(secret, i), `192.0.2.${(i % 250) + 1}, 10.${i}.0.1`),
          ),
        );
        expect(responses.map((response) => response.status)).toEqual(Array(200).fill(401));
        expect(hasher.verifications - before).toBe(10);
      });
    });

    describe('with at most 1 argon2 verification at once, 2 queued and no reserved slot', () => {
      const hasher = countingHasher(150);
      // Without the slot reserved for known clients, the owner has to queue: this checks
      // that it goes first, taking the place of the newest waiter.
      const ctx = useContractServer(options, {
        trustProxy: LOOPBACK,
        tokenHasher: hasher,
        verificationConcurrency: { maxConcurrent: 1, maxQueued: 2, reservedForTrusted: 0 },
      });

      it('answers verifications beyond the queue 503 with Retry-After, and serves a known client first', async () => {
        const org = await ctx.createOrganisation('team');
        const { secret } = await ctx.createToken(org);
        expect((await validateAs(ctx, secret, '203.0.113.7')).status).toBe(200);
        ctx.clock.advance(11_000); // past the verified-token cache
        const flood = Array.from({ length: 12 }, (_, i) =>
          validateAs(ctx, randomToken(1000 + i), `198.51.100.${200 + i}`),
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
        const owner = validateAs(ctx, secret, '203.0.113.7');
        const answers = await Promise.all(flood);
        const shed = answers.filter((response) => response.status === 503);
        expect(shed.length).toBeGreaterThanOrEqual(9);
        expect(answers.filter((response) => response.status === 401).length).toBe(12 - shed.length);
        for (const response of shed) {
          expect(response.headers.get('retry-after')).toBe('1');
          expect(response.headers.get('content-type')).toMatch(/^application\/json/);
          expect(await response.json()).toEqual({ error: 'service unavailable' });
        }
        expect((await owner).status).toBe(200);
        expect(messages(ctx, '[ratelimit] token verifications')).toEqual([
          '[ratelimit] token verifications over capacity (1 running, 2 queued): answering 503 until the queue drains',
          '[ratelimit] token verifications within capacity again',
        ]);
      });
    });
  });
}
