import { guessAt, wrongSecretOf } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import type { TokenHasher } from '../../src/tokens/token-hash.js';
import { createVerificationPace } from '../../src/tokens/verification-pace.js';
import { apiFixture } from './api-fixture.js';

const OWNER = '203.0.113.7';
const INVALID_TOKEN = { error: 'invalid token' };
const UNAVAILABLE = { error: 'service unavailable' };

/** A hasher whose verifications only answer when the test says so, in the order they began. */
function controllableHasher() {
  const pending: { token: string; answer: () => void }[] = [];
  const verified: string[] = [];
  const hasher: TokenHasher = {
    hash: async (token) => `fake:${token}`,
    verify: (hash, token) =>
      new Promise<boolean>((resolve) => {
        verified.push(token);
        pending.push({ token, answer: () => resolve(hash === `fake:${token}`) });
      }),
  };
  return { hasher, pending, verified };
}

/**
 * An API with a controllable hasher and a pace whose waits (imitated verifications of
 * unknown ids) also only end when the test says so. Argon2 "takes" 0 ms on the pace's clock.
 */
async function floodFixture(maxConcurrent: number, maxQueued: number) {
  const argon2 = controllableHasher();
  const sleeps: (() => void)[] = [];
  const fx = await apiFixture({
    tokenHasher: argon2.hasher,
    verificationConcurrency: { maxConcurrent, maxQueued },
    verificationPace: createVerificationPace({
      now: () => 0,
      sleep: () => new Promise<void>((resolve) => sleeps.push(resolve)),
      pick: () => 0,
    }),
  });
  const validate = (token: string, remoteAddress: string) =>
    fx.api.handle(
      new Request('http://localhost/v1/auth/validate', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      }),
      { remoteAddress },
    );
  /** Lets every request in flight run until it waits on the test (no timers involved). */
  const settle = async () => {
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  /** The owner's token, verified once from its address (which also gives the pace a duration). */
  const owner = await fx.insertToken();
  const first = validate(owner.token, OWNER);
  await settle();
  argon2.pending.shift()?.answer();
  expect((await first).status).toBe(200);
  fx.clock.advance(11_000); // past the verified-token cache: the next check runs "argon2"
  argon2.verified.length = 0;
  /** The messages of the log lines that mention `word`, in order. */
  const loggedAbout = (word: string): string[] =>
    fx.logLines.map((line) => JSON.parse(line).msg).filter((msg: string) => msg.includes(word));
  return { ...fx, argon2, sleeps, validate, settle, owner, loggedAbout };
}

/** A syntactically valid token whose id is in no store: `cvg_` + 40 hex from `n`. */
function unknownToken(n: number): string {
  return `cvg_${n.toString(16).padStart(8, '0')}${'4e'.repeat(16)}`;
}

const isGuessOf = (token: string) => (candidate: string) =>
  candidate !== token && candidate.slice(0, -4) === token.slice(0, -4);

/** Responses of the settled promises only, in request order. */
async function answered(requests: Promise<Response>[]) {
  const marks = requests.map((request) =>
    Promise.race([request, Promise.resolve(null)]).then((response) => response),
  );
  return (await Promise.all(marks)).filter((response): response is Response => response !== null);
}

const bodies = new WeakMap<Response, Promise<unknown>>();

/** Checks status and body (read once per response, so a response can be checked twice). */
async function expectAnswer(response: Response, status: number, body: unknown) {
  expect(response.status).toBe(status);
  if (!bodies.has(response)) bodies.set(response, response.json());
  expect(await bodies.get(response)).toEqual(body);
  if (status === 503) expect(response.headers.get('retry-after')).toBe('1');
}

describe('a flood of bad tokens (issue 13)', () => {
  it('many addresses, unknown ids: no argon2 for them, shedding past the queue, and the owner served at once', async () => {
    const fx = await floodFixture(2, 4);
    const flood = Array.from({ length: 20 }, (_, i) => fx.validate(unknownToken(i), `10.0.0.${i}`));
    await fx.settle();
    // Two imitated verifications hold the slots, four wait; no argon2 ran for any of them.
    expect(fx.sleeps).toHaveLength(2);
    expect(fx.argon2.verified).toEqual([]);
    const shed = await answered(flood);
    expect(shed).toHaveLength(14);
    for (const response of shed) await expectAnswer(response, 503, UNAVAILABLE);

    const owner = fx.validate(fx.owner.token, OWNER);
    await fx.settle();
    // The owner starts at once, in the slot reserved for tokens verified from their address.
    expect(await answered(flood)).toHaveLength(14);
    expect(fx.argon2.verified).toEqual([fx.owner.token]);
    fx.argon2.pending.shift()?.answer();
    const ownerAnswer = await owner;
    expect(ownerAnswer.status).toBe(200);
    expect(await ownerAnswer.json()).toEqual({
      valid: true,
      org_id: fx.org.id,
      org: fx.org.slug,
      token_id: fx.owner.id,
      scopes: ['execute'],
      expires_at: null,
    });

    while (fx.sleeps.length > 0) {
      fx.sleeps.shift()?.();
      await fx.settle();
    }
    const answers = await Promise.all(flood);
    expect(answers.map((response) => response.status).sort()).toEqual([
      ...Array(6).fill(401),
      ...Array(14).fill(503),
    ]);
    for (const response of answers.filter((answer) => answer.status === 401)) {
      await expectAnswer(response, 401, INVALID_TOKEN);
    }
    expect(fx.argon2.verified).toEqual([fx.owner.token]);
    expect(fx.loggedAbout('capacity')).toEqual([
      '[ratelimit] token verifications over capacity (2 running, 4 queued): answering 503 until the queue drains',
      '[ratelimit] token verifications within capacity again',
    ]);
  });

  it('one address: its 31st concurrent failure is refused at once and blocks it, the owner elsewhere is served', async () => {
    const fx = await floodFixture(2, 64);
    const flood = Array.from({ length: 40 }, (_, i) =>
      fx.validate(unknownToken(100 + i), '198.51.100.9'),
    );
    await fx.settle();
    const refused = await answered(flood);
    expect(refused).toHaveLength(10);
    for (const response of refused) await expectAnswer(response, 401, INVALID_TOKEN);
    expect(fx.sleeps).toHaveLength(2);

    const fromBlocked = fx.validate(fx.owner.token, '198.51.100.9');
    const owner = fx.validate(fx.owner.token, OWNER);
    await fx.settle();
    await expectAnswer(await fromBlocked, 401, INVALID_TOKEN);
    expect(fx.argon2.verified).toEqual([fx.owner.token]);
    fx.argon2.pending.shift()?.answer();
    expect((await owner).status).toBe(200);

    while (fx.sleeps.length > 0) {
      fx.sleeps.shift()?.();
      await fx.settle();
    }
    for (const response of await Promise.all(flood)) {
      await expectAnswer(response, 401, INVALID_TOKEN);
    }
    expect(fx.argon2.verified).toEqual([fx.owner.token]);
    expect(fx.loggedAbout('blocked')).toEqual([
      '[ratelimit] verification blocked remote=198.51.100.9 for 300 s: 30 failed verifications within 60 s',
    ]);
  });

  it('one token id: 40 concurrent guesses run 10 verifications, the owner does not wait for them', async () => {
    const fx = await floodFixture(2, 64);
    const guesses = Array.from({ length: 40 }, (_, i) =>
      fx.validate(guessAt(fx.owner.token, i), `10.1.0.${i}`),
    );
    await fx.settle();
    const refused = await answered(guesses);
    expect(refused).toHaveLength(30);
    for (const response of refused) await expectAnswer(response, 401, INVALID_TOKEN);
    expect(fx.argon2.verified).toEqual([guessAt(fx.owner.token, 0), guessAt(fx.owner.token, 1)]);

    const owner = fx.validate(fx.owner.token, OWNER);
    await fx.settle();
    expect(fx.argon2.verified).toEqual([
      guessAt(fx.owner.token, 0),
      guessAt(fx.owner.token, 1),
      fx.owner.token,
    ]);
    const ownerVerification = fx.argon2.pending.find(({ token }) => token === fx.owner.token);
    ownerVerification?.answer();
    expect((await owner).status).toBe(200);

    while (fx.argon2.pending.length > 0) {
      fx.argon2.pending.shift()?.answer();
      await fx.settle();
    }
    for (const response of await Promise.all(guesses)) {
      await expectAnswer(response, 401, INVALID_TOKEN);
    }
    expect(fx.argon2.verified.filter(isGuessOf(fx.owner.token))).toHaveLength(10);
    expect(fx.sleeps).toEqual([]);
    expect(fx.loggedAbout('blocked')).toEqual([
      `[ratelimit] verification blocked token_id=${fx.owner.id} for 300 s: 10 failed verifications within 60 s`,
    ]);
  });

  it('mixed: unknown ids and guesses on a known id from many addresses; argon2 only for the guesses and the owner', async () => {
    const fx = await floodFixture(2, 64);
    const flood: Promise<Response>[] = [];
    for (let i = 0; i < 20; i++) {
      flood.push(fx.validate(unknownToken(200 + i), `10.2.0.${i}`));
      flood.push(fx.validate(guessAt(fx.owner.token, i), `10.3.0.${i}`));
    }
    await fx.settle();
    const refused = await answered(flood);
    expect(refused).toHaveLength(10);
    for (const response of refused) await expectAnswer(response, 401, INVALID_TOKEN);

    const owner = fx.validate(fx.owner.token, OWNER);
    await fx.settle();
    expect(fx.argon2.pending.length + fx.sleeps.length).toBe(3);
    expect(fx.argon2.verified.at(-1)).toBe(fx.owner.token);
    fx.argon2.pending.find(({ token }) => token === fx.owner.token)?.answer();
    expect((await owner).status).toBe(200);

    while (fx.argon2.pending.length + fx.sleeps.length > 0) {
      fx.argon2.pending.shift()?.answer();
      fx.sleeps.shift()?.();
      await fx.settle();
    }
    for (const response of await Promise.all(flood)) {
      await expectAnswer(response, 401, INVALID_TOKEN);
    }
    expect(fx.argon2.verified.filter(isGuessOf(fx.owner.token))).toHaveLength(10);
    expect(fx.argon2.verified.filter((token) => token === fx.owner.token)).toHaveLength(1);
    expect(fx.argon2.verified).toHaveLength(11);
  });

  it('parallel jobs with one token past its cache entry share one verification: one argon2 run, every answer 200', async () => {
    const fx = await floodFixture(2, 4);
    // Fifty CI jobs, from the owner's address and from fresh ones, all with the same token.
    const jobs = Array.from({ length: 50 }, (_, i) =>
      fx.validate(fx.owner.token, i % 2 === 0 ? OWNER : `198.51.100.${i}`),
    );
    await fx.settle();
    expect(fx.argon2.verified).toEqual([fx.owner.token]);
    fx.argon2.pending.shift()?.answer();
    const answers = await Promise.all(jobs);
    expect(answers.map((response) => response.status)).toEqual(Array(50).fill(200));
    // The shared answer went to the cache: the next request runs no argon2 at all.
    expect((await fx.validate(fx.owner.token, '198.51.100.200')).status).toBe(200);
    expect(fx.argon2.verified).toHaveLength(1);
  });

  it('the same wrong secret sent 30 times at once costs one verification and one failure', async () => {
    const fx = await floodFixture(2, 4);
    const wrong = wrongSecretOf(fx.owner.token);
    const guesses = Array.from({ length: 30 }, () => fx.validate(wrong, '10.9.9.9'));
    await fx.settle();
    expect(fx.argon2.verified).toEqual([wrong]);
    fx.argon2.pending.shift()?.answer();
    for (const response of await Promise.all(guesses)) {
      await expectAnswer(response, 401, INVALID_TOKEN);
    }
    // One failure on the token id and one on the address: the owner, elsewhere, is served.
    const owner = fx.validate(fx.owner.token, '198.51.100.7');
    await fx.settle();
    fx.argon2.pending.shift()?.answer();
    expect((await owner).status).toBe(200);
    expect(fx.argon2.verified).toEqual([wrong, fx.owner.token]);
  });
});
