import { Writable } from 'node:stream';
import {
  type CovgateApi,
  createApi,
  createMemoryStore,
  createTokenHasher,
  createVerificationThrottle,
  type Organisation,
} from '@covgate/core';
import { buildOrganisation, issueTestToken } from '@covgate/core/testing';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { type RedisRateLimit, redisRateLimit } from '../src/redis-rate-limit.js';

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
    afterAll(async () => {
      await Promise.all(limiters.map((limiter) => limiter.dispose()));
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
      const wrong = `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`;
      const guesses = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          validate(apis[i % 2]!, wrong, `10.${Math.floor(i / 250)}.${i % 250}.9`),
        ),
      );
      expect(guesses.map((response) => response.status)).toEqual(Array(200).fill(401));
      expect(verifications).toBe(10);
      // The second process has not cached the token: it answers from the shared trusted pair.
      expect((await validate(apis[1]!, token, '203.0.113.8')).status).toBe(401);
      expect((await validate(apis[1]!, token, owner)).status).toBe(200);
    });
  },
);
