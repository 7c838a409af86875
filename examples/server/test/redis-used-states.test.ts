import { randomBytes } from 'node:crypto';
import { captureLogs } from '@covgate/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { type RedisRateLimit, redisRateLimit } from '../src/redis-rate-limit.js';

const redisUrl = process.env.COVGATE_REDIS_URL;
if (!redisUrl) {
  console.warn('[covgate] Redis used-state suite SKIPPED: set COVGATE_REDIS_URL');
}

const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000);
const fingerprint = () => randomBytes(32).toString('hex');

describe.skipIf(!redisUrl && process.env.COVGATE_REQUIRE_REDIS !== '1')(
  'OAuth used login states shared through Redis',
  () => {
    const connections: RedisRateLimit[] = [];
    const connect = async (url: string, logs = captureLogs()) => {
      const redis = redisRateLimit(url, logs.logger);
      connections.push(redis);
      return { redis, logs };
    };
    afterAll(async () => {
      await Promise.all(connections.map((redis) => redis.dispose()));
    });

    it('lets exactly one of 40 concurrent claims of a state win, across two processes', async () => {
      if (!redisUrl) throw new Error('COVGATE_REQUIRE_REDIS=1 but COVGATE_REDIS_URL is unset');
      const [one, two] = [await connect(redisUrl), await connect(redisUrl)];
      await Promise.all([one.redis.ready, two.redis.ready]);
      const state = fingerprint();
      const claims = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 === 0 ? one : two).redis.usedStates.claim(state, inMinutes(10)),
        ),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      // Another state is unaffected; a state is free again once it expired.
      expect(await two.redis.usedStates.claim(fingerprint(), inMinutes(10))).toBe(true);
      const brief = fingerprint();
      expect(await one.redis.usedStates.claim(brief, new Date(Date.now() + 50))).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 120));
      expect(await two.redis.usedStates.claim(brief, inMinutes(10))).toBe(true);
      expect(one.logs.messages().filter((line) => line.startsWith('[oauth]'))).toEqual([]);
    });

    it('refuses a replay on the same process while Redis is unreachable, logging the outage once', async () => {
      const { redis, logs } = await connect('redis://127.0.0.1:1');
      const state = fingerprint();
      expect(await redis.usedStates.claim(state, inMinutes(10))).toBe(true);
      expect(await redis.usedStates.claim(state, inMinutes(10))).toBe(false);
      expect(await redis.usedStates.claim(fingerprint(), inMinutes(10))).toBe(true);
      const oauthLines = logs.messages().filter((line) => line.startsWith('[oauth]'));
      expect(oauthLines).toHaveLength(1);
      expect(oauthLines[0]).toMatch(
        /^\[oauth\] redis unavailable, used login states checked in this process only: /,
      );
    });
  },
);
