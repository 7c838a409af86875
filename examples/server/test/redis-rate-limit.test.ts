import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import {
  type CovgateApi,
  createApi,
  createMemoryStore,
  createTokenHasher,
  createVerificationThrottle,
  type Organisation,
} from '@covgate/core';
import { buildOrganisation, guessAt, issueTestToken } from '@covgate/testing';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { REDIS_DEADLINE_MS, type RedisRateLimit, redisRateLimit } from '../src/redis-rate-limit.js';
import { type FaultProxy, startFaultProxy } from './support/fault-proxy.js';

const redisUrl = process.env.COVGATE_REDIS_URL;
if (!redisUrl) {
  console.warn(
    '[covgate] Redis rate-limit suite SKIPPED: set COVGATE_REDIS_URL=redis://127.0.0.1:6379',
  );
}

const silent = pino({ base: null }, new Writable({ write: (_c, _e, done) => done() }));
const hasher = createTokenHasher({ memoryCost: 1024, timeCost: 1 });

/** A memory store holding `org` and one `execute` token of it called `name`. */
async function storeWithToken(org: Organisation, name: string) {
  const store = createMemoryStore();
  await store.createOrganisation(org);
  const { token } = await issueTestToken(store, {
    orgId: org.id,
    hasher,
    name,
    createdAt: new Date(),
  });
  return { store, token };
}

describe.skipIf(!redisUrl && process.env.COVGATE_REQUIRE_REDIS !== '1')(
  'rate limits shared through Redis',
  () => {
    const limiters: RedisRateLimit[] = [];
    const proxies: FaultProxy[] = [];
    afterAll(async () => {
      await Promise.all(limiters.map((limiter) => limiter.dispose()));
      for (const proxy of proxies) proxy.resume();
      await Promise.all(proxies.map((proxy) => proxy.close()));
    });

    it('counts one token across two processes against one limit', async () => {
      if (!redisUrl) throw new Error('COVGATE_REQUIRE_REDIS=1 but COVGATE_REDIS_URL is unset');
      const org = buildOrganisation({ plan: 'enterprise' });
      const { store, token } = await storeWithToken(org, 'redis');
      const apis = [];
      for (let i = 0; i < 2; i++) {
        const limiter = redisRateLimit(redisUrl, silent);
        limiters.push(limiter);
        await limiter.ready;
        apis.push(
          createApi({
            store,
            sessionSecret: 'redis-test-session-secret-0123456789',
            tokenHasher: hasher,
            logger: silent,
            auditSink: { write() {} },
            rateLimit: { limits: { enterprise: 3 }, createLimiter: limiter.createLimiter },
          }),
        );
      }
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const api = apis[i % 2]!;
        const response = await api.handle(
          new Request(`http://localhost/v1/executions?org=${org.slug}&repo=r`, {
            headers: { authorization: `Bearer ${token}` },
          }),
        );
        statuses.push(response.status);
        if (i === 0) expect(response.headers.get('ratelimit-limit')).toBe('3');
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    });

    it('serves requests when Redis is unreachable (fail open)', async () => {
      const limiter = redisRateLimit('redis://127.0.0.1:1', silent);
      limiters.push(limiter);
      const org = buildOrganisation();
      const { store, token } = await storeWithToken(org, 'down');
      const api = createApi({
        store,
        sessionSecret: 'redis-test-session-secret-0123456789',
        tokenHasher: hasher,
        logger: silent,
        auditSink: { write() {} },
        rateLimit: { createLimiter: limiter.createLimiter },
      });
      const response = await api.handle(
        new Request(`http://localhost/v1/executions?org=${org.slug}&repo=r`, {
          headers: { authorization: `Bearer ${token}` },
        }),
      );
      expect(response.status).toBe(200);
    });
    it('waits for a stalled Redis at most one deadline per request, skips it until it answers again, then limits again', async () => {
      if (!redisUrl) throw new Error('COVGATE_REQUIRE_REDIS=1 but COVGATE_REDIS_URL is unset');
      const direct = new URL(redisUrl);
      const proxy = await startFaultProxy({
        host: direct.hostname,
        port: Number(direct.port || 6379),
      });
      proxies.push(proxy);
      const proxied = new URL(redisUrl);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxy.port);
      const limiter = redisRateLimit(proxied.toString(), silent);
      limiters.push(limiter);
      await limiter.ready;
      const org = buildOrganisation({ plan: 'enterprise' });
      const { store, token: first } = await storeWithToken(org, 'first');
      const { token: second } = await issueTestToken(store, {
        orgId: org.id,
        hasher,
        name: 'second',
        createdAt: new Date(),
      });
      const api = createApi({
        store,
        sessionSecret: 'redis-test-session-secret-0123456789',
        tokenHasher: hasher,
        logger: silent,
        auditSink: { write() {} },
        rateLimit: { limits: { enterprise: 1000 }, createLimiter: limiter.createLimiter },
        verificationThrottle: createVerificationThrottle({
          createLimiter: limiter.createThrottleLimiter,
          exemptionSecret: 'redis-test-exemption-secret',
        }),
      });
      const timedList = async (token: string) => {
        const start = performance.now();
        const response = await api.handle(
          new Request(`http://localhost/v1/executions?org=${org.slug}&repo=r`, {
            headers: { authorization: `Bearer ${token}` },
          }),
        );
        return { response, ms: performance.now() - start };
      };
      proxy.stall();
      try {
        // Neither token is cached: each request asks Redis for the verification throttle and
        // then for the rate limit. Deadlines fire late under load, never early: a request that
        // waited two of them in sequence cannot be answered within two deadlines.
        const stalled = await timedList(first);
        expect(stalled.response.status).toBe(200);
        expect(stalled.response.headers.get('ratelimit-limit')).toBeNull();
        expect(stalled.ms).toBeLessThan(2 * REDIS_DEADLINE_MS);
        // The outage is known now: the next request does not wait for Redis at all.
        const during = await timedList(second);
        expect(during.response.status).toBe(200);
        expect(during.ms).toBeLessThan(REDIS_DEADLINE_MS);
        const readiness = performance.now();
        await expect(limiter.ping()).rejects.toThrow('redis outage in progress');
        expect(performance.now() - readiness).toBeLessThan(REDIS_DEADLINE_MS);
      } finally {
        proxy.resume();
      }
      // The probe's PING answers once Redis does; then limits are enforced again.
      const resumed = performance.now();
      let answered = false;
      while (!answered && performance.now() - resumed < 10_000) {
        answered = await limiter.ping().then(
          () => true,
          () => false,
        );
        if (!answered) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(answered).toBe(true);
      const after = await timedList(first);
      expect(after.response.status).toBe(200);
      expect(after.response.headers.get('ratelimit-limit')).toBe('1000');
    });
    it('shares atomic throttling between two processes: 200 concurrent guesses cost 10 verifications', async () => {
      if (!redisUrl) throw new Error('COVGATE_REQUIRE_REDIS=1 but COVGATE_REDIS_URL is unset');
      const org = buildOrganisation({ plan: 'enterprise' });
      const { store, token } = await storeWithToken(org, 'guessed');
      let verifications = 0;
      const counting = {
        hash: (value: string) => hasher.hash(value),
        verify: (hash: string, value: string) => {
          verifications += 1;
          return hasher.verify(hash, value);
        },
      };
      const apis: CovgateApi[] = [];
      for (let i = 0; i < 2; i++) {
        const limiter = redisRateLimit(redisUrl, silent);
        limiters.push(limiter);
        await limiter.ready;
        apis.push(
          createApi({
            store,
            sessionSecret: 'redis-test-session-secret-0123456789',
            tokenHasher: counting,
            logger: silent,
            auditSink: { write() {} },
            verificationThrottle: createVerificationThrottle({
              createLimiter: limiter.createThrottleLimiter,
              exemptionSecret: 'redis-test-exemption-secret',
            }),
          }),
        );
      }
      const validate = (api: CovgateApi, secret: string, remoteAddress: string) =>
        api.handle(
          new Request('http://localhost/v1/auth/validate', {
            method: 'POST',
            headers: { authorization: `Bearer ${secret}` },
          }),
          { remoteAddress },
        );
      const owner = '203.0.113.7';
      expect((await validate(apis[0]!, token, owner)).status).toBe(200);
      verifications = 0;
      // 200 different wrong secrets for the token's id (identical guesses in flight together
      // share one verification in a process, so they would not test the shared reservations).
      const guesses = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          validate(apis[i % 2]!, guessAt(token, i), `10.${Math.floor(i / 250)}.${i % 250}.9`),
        ),
      );
      expect(guesses.map((response) => response.status)).toEqual(Array(200).fill(401));
      expect(verifications).toBe(10);
      // The second process has not cached the token: it answers from the shared trusted pair.
      expect((await validate(apis[1]!, token, '203.0.113.8')).status).toBe(401);
      expect((await validate(apis[1]!, token, owner)).status).toBe(200);
    });

    it("keeps the owner's token working on another process from an address 30 unknown tokens blocked", async () => {
      if (!redisUrl) throw new Error('COVGATE_REQUIRE_REDIS=1 but COVGATE_REDIS_URL is unset');
      const org = buildOrganisation({ plan: 'enterprise' });
      const { store, token } = await storeWithToken(org, 'nat-owner');
      const apis: CovgateApi[] = [];
      for (let i = 0; i < 2; i++) {
        const limiter = redisRateLimit(redisUrl, silent);
        limiters.push(limiter);
        await limiter.ready;
        apis.push(
          createApi({
            store,
            sessionSecret: 'redis-test-session-secret-0123456789',
            tokenHasher: hasher,
            logger: silent,
            auditSink: { write() {} },
            verificationThrottle: createVerificationThrottle({
              createLimiter: limiter.createThrottleLimiter,
              exemptionSecret: 'redis-test-exemption-secret',
            }),
          }),
        );
      }
      const validate = (api: CovgateApi, secret: string, remoteAddress: string) =>
        api.handle(
          new Request('http://localhost/v1/auth/validate', {
            method: 'POST',
            headers: { authorization: `Bearer ${secret}` },
          }),
          { remoteAddress },
        );
      // Blocks live 5 minutes in Redis: an address of its own for each run.
      const nat = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.90`;
      expect((await validate(apis[0]!, token, nat)).status).toBe(200);
      for (let i = 0; i < 30; i++) {
        const unknown = `cvg_${randomBytes(16).toString('hex')}00000000`;
        expect((await validate(apis[i % 2]!, unknown, nat)).status).toBe(401);
      }
      const unknown = `cvg_${randomBytes(16).toString('hex')}00000000`;
      // The second process never verified (nor cached) the token: the exemption is in Redis.
      expect((await validate(apis[1]!, token, nat)).status).toBe(200);
      expect((await validate(apis[1]!, unknown, nat)).status).toBe(401);
    });
  },
);
