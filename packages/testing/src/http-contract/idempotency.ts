import { describe, expect, it } from 'vitest';
import { type HttpContractOptions, useContractServer } from './harness.js';
import { teamWithToken, useTeamWithToken } from './team-setup.js';

const HOUR_MS = 3_600_000;

/** `Idempotency-Key` on `POST /v1/executions`: replays, conflicts, expiry and races. */
export function idempotencyContract(options: HttpContractOptions): void {
  describe('idempotent ingest', () => {
    const ctx = useContractServer(options);
    const team = useTeamWithToken(ctx);

    const ingest = (key: string | null, body: unknown, bearer = team.token) =>
      ctx.request('/v1/executions', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${bearer}`,
          'content-type': 'application/json',
          ...(key === null ? {} : { 'idempotency-key': key }),
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });

    const total = async (
      repo: string,
      orgSlug = team.org.slug,
      bearer = team.token,
    ): Promise<number> => {
      const response = await ctx.request(`/v1/executions?org=${orgSlug}&repo=${repo}`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
      return ((await response.json()) as { total: number }).total;
    };

    it('answers a repeat of the same request with the first record, status and body, marked Idempotent-Replayed: true', async () => {
      const { org } = team;
      const first = await ingest('run-1', { repo: 'web', branch: 'main', coverage: 84.1 });
      const firstBody = await first.text();
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();

      ctx.clock.advance(5_000);
      // The same request spelt differently: key order, defaults written out, 84.10.
      const again = await ingest(
        'run-1',
        `{"base_branch":"main","coverage":84.10,"branch":"main","repo":"web","org":"${org.slug}","warn_threshold":0.5}`,
      );

      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await again.text()).toBe(firstBody);
      expect(JSON.parse(firstBody)).toMatchObject({ repo: 'web', coverage: 84.1, outcome: 'pass' });
      expect(await total('web')).toBe(1);
    });

    it('replays the baseline the first answer named, after the base branch has moved on', async () => {
      const uncompared = { repo: 'moving', branch: 'feature', coverage: 70 };
      const none = await ingest('first-run', uncompared);
      const noneBody = await none.text();
      expect(JSON.parse(noneBody)).toMatchObject({ baseline: null });

      const base = (await (
        await ingest(null, { repo: 'moving', branch: 'main', coverage: 80 })
      ).json()) as { id: string; created_at: string };
      ctx.clock.advance(1000);
      const comparedRun = { repo: 'moving', branch: 'feature', coverage: 79 };
      const compared = await ingest('compared', comparedRun);
      const comparedBody = await compared.text();
      expect(JSON.parse(comparedBody)).toMatchObject({
        delta: '-1.00',
        baseline: {
          id: base.id,
          coverage: 80,
          branch: 'main',
          commit: null,
          created_at: base.created_at,
        },
      });

      // main moves on: a new request would be compared with 90, a replay is not.
      ctx.clock.advance(1000);
      await ingest(null, { repo: 'moving', branch: 'main', coverage: 90 });
      for (const [key, run, body] of [
        ['first-run', uncompared, noneBody],
        ['compared', comparedRun, comparedBody],
      ] as const) {
        const replayed = await ingest(key, run);
        expect(replayed.headers.get('idempotent-replayed'), key).toBe('true');
        expect(await replayed.text()).toBe(body);
      }
    });

    it('answers 409 for the same key with another request and stores nothing', async () => {
      expect((await ingest('run-2', { repo: 'web', branch: 'main', coverage: 80 })).status).toBe(
        201,
      );

      for (const other of [
        { repo: 'web', branch: 'main', coverage: 80.01 },
        { repo: 'web', branch: 'dev', coverage: 80 },
        { repo: 'api', branch: 'main', coverage: 80 },
        { repo: 'web', branch: 'main', coverage: 80, commit: 'abcdef1' },
        { repo: 'web', branch: 'main', coverage: 80, fail_threshold: 2 },
      ]) {
        const response = await ingest('run-2', other);
        expect(response.status).toBe(409);
        expect(await response.json()).toEqual({
          error: 'idempotency key already used for another request',
        });
        expect(response.headers.get('idempotent-replayed')).toBeNull();
      }
      expect(await total('web')).toBe(1);
      expect(await total('api')).toBe(0);
    });

    it('refuses a key that is not 1-255 visible ASCII characters with 400 and stores nothing', async () => {
      for (const bad of ['', 'a b', 'x'.repeat(256), 'cl\u00e9', 'two, keys']) {
        const response = await ingest(bad, { repo: 'bad-keys', branch: 'main', coverage: 80 });
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({ error: 'invalid header: Idempotency-Key' });
      }
      expect(await total('bad-keys')).toBe(0);
      const longest = await ingest('~'.repeat(255), {
        repo: 'bad-keys',
        branch: 'main',
        coverage: 80,
      });
      expect(longest.status).toBe(201);
    });

    it('checks the key after the credential and before the body', async () => {
      const unauthenticated = await ingest('a b', { repo: 'web' }, 'garbage');
      expect(unauthenticated.status).toBe(401);
      const badKeyAndBody = await ingest('a b', '{');
      expect(await badKeyAndBody.json()).toEqual({ error: 'invalid header: Idempotency-Key' });
      await ingest('run-3', { repo: 'web', branch: 'main', coverage: 80 });
      const badBody = await ingest('run-3', { repo: 'web', branch: 'main' });
      expect(badBody.status).toBe(400);
      expect(await badBody.json()).toEqual({ error: 'invalid parameter: coverage' });
    });

    it('scopes keys per organisation and tells keys apart by case', async () => {
      const { org: other, token: otherToken } = await teamWithToken(ctx);
      const body = { repo: 'web', branch: 'main', coverage: 70 };

      const mine = await ingest('Shared-Key', body);
      const theirs = await ingest('Shared-Key', body, otherToken);
      const lower = await ingest('shared-key', body);

      for (const response of [mine, theirs, lower]) {
        expect(response.status).toBe(201);
        expect(response.headers.get('idempotent-replayed')).toBeNull();
      }
      const ids = await Promise.all([mine, theirs, lower].map(async (r) => (await r.json()).id));
      expect(new Set(ids).size).toBe(3);
      expect(await total('web')).toBe(2);
      expect(await total('web', other.slug, otherToken)).toBe(1);
    });

    it('keeps a key 24 hours under the server clock, then takes it as new', async () => {
      const body = { repo: 'expiry', branch: 'main', coverage: 75 };
      const first = await ingest('daily', body);
      const firstRecord = await first.json();

      ctx.clock.advance(24 * HOUR_MS - 1_000);
      const lastSecond = await ingest('daily', body);
      expect(lastSecond.headers.get('idempotent-replayed')).toBe('true');
      expect(await lastSecond.json()).toEqual(firstRecord);

      ctx.clock.advance(1_000);
      const afterwards = await ingest('daily', { ...body, coverage: 76 });
      expect(afterwards.status).toBe(201);
      expect(afterwards.headers.get('idempotent-replayed')).toBeNull();
      expect((await afterwards.json()).id).not.toBe(firstRecord.id);
      expect(await total('expiry')).toBe(2);
    });

    it('deletes expired keys from the store, at most once an hour', async () => {
      const { org } = team;
      const body = { repo: 'sweep', branch: 'main', coverage: 75 };
      await ingest('swept', body);
      const storedAt = ctx.clock.now();
      expect(await ctx.store.findIdempotentExecution(org.id, 'swept', storedAt)).not.toBeNull();

      ctx.clock.advance(25 * HOUR_MS);
      expect((await ingest('sweeper', body)).status).toBe(201);

      // Looked up at an instant when it was live: the row itself is gone.
      expect(await ctx.store.findIdempotentExecution(org.id, 'swept', storedAt)).toBeNull();
      expect(
        await ctx.store.findIdempotentExecution(org.id, 'sweeper', ctx.clock.now()),
      ).not.toBeNull();
    });

    it('stores one execution for 10 concurrent requests with one key, and answers each with it', async () => {
      const body = { repo: 'race', branch: 'main', coverage: 90 };

      const responses = await Promise.all(Array.from({ length: 10 }, () => ingest('raced', body)));

      expect(responses.map((response) => response.status)).toEqual(Array(10).fill(201));
      const texts = await Promise.all(responses.map((response) => response.text()));
      expect(new Set(texts).size).toBe(1);
      const fresh = responses.filter((r) => r.headers.get('idempotent-replayed') === null);
      expect(fresh).toHaveLength(1);
      expect(await total('race')).toBe(1);
    });

    it('records every request without a key, as before', async () => {
      const body = { repo: 'unkeyed', branch: 'main', coverage: 90 };
      expect((await ingest(null, body)).status).toBe(201);
      expect((await ingest(null, body)).status).toBe(201);
      expect(await total('unkeyed')).toBe(2);
    });
  });
}
