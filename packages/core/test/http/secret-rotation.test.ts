import { buildOrganisation, captureLogs, issueTestToken } from '@covgate/testing';
import { providerA, providerB } from '@covgate/webhook-signature';
import { describe, expect, it } from 'vitest';
import { createMemoryAuditSink } from '../../src/audit/audit-sink.js';
import { type CreateApiOptions, createApi } from '../../src/http/create-api.js';
import { hashSessionToken } from '../../src/sessions/session-token-hash.js';
import { createMemoryStore } from '../../src/storage/memory-store.js';
import { createManualClock } from '../../src/time/timestamp.js';
import { createTokenHasher, type TokenHasherOptions } from '../../src/tokens/token-hash.js';
import { withStoreMethod } from '../support/store-method.js';
import { rawBodySignature, stripeSignature } from '../webhooks/support/senders.js';

const OLD = 'old-secret-value-0123456789abcdef0123456789';
const NEW = 'new-secret-value-abcdef0123456789abcdef0123';
const OTHER = 'unrelated-secret-9876543210fedcba9876543210';
const START = new Date('2026-03-01T12:00:00Z');
const CHEAP = { memoryCost: 1024, timeCost: 1 } as const;
const INVALID_TOKEN = { error: 'invalid token' };

/** One deployment's data: a memory store and an organisation shared by several API instances. */
async function deployment() {
  const store = createMemoryStore();
  const clock = createManualClock(START);
  const org = buildOrganisation({ plan: 'enterprise' });
  await store.createOrganisation(org);
  return { store, clock, org };
}

type Deployment = Awaited<ReturnType<typeof deployment>>;

/** An API instance (one process's configuration) over the deployment's store. */
function instance(d: Deployment, options: Partial<CreateApiOptions>) {
  const audit = createMemoryAuditSink();
  const logs = captureLogs();
  const api = createApi({
    store: d.store,
    clock: d.clock,
    sessionSecret: NEW,
    secureCookies: false,
    auditSink: audit,
    logger: logs.logger,
    ...options,
  });
  const request = (path: string, init: RequestInit = {}) =>
    api.handle(new Request(`http://localhost${path}`, init), { remoteAddress: '203.0.113.7' });
  return { api, audit, logs, request };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The one answer to a credential the deployment does not accept. */
async function expectInvalidToken(response: Response): Promise<void> {
  expect(response.status).toBe(401);
  expect(await response.json()).toEqual(INVALID_TOKEN);
}

describe('TOKEN_PEPPER rotation', () => {
  const hasher = (options: TokenHasherOptions) => createTokenHasher({ ...CHEAP, ...options });

  async function tokenUnderOldPepper(d: Deployment) {
    return issueTestToken(d.store, {
      orgId: d.org.id,
      hasher: hasher({ pepper: OLD }),
      name: 'ci',
      createdAt: START,
    });
  }

  const listPath = (d: Deployment) => `/v1/executions?org=${d.org.slug}&repo=web`;

  it('rejects a token hashed under the old pepper when only the new one is configured', async () => {
    const d = await deployment();
    const { token } = await tokenUnderOldPepper(d);
    const api = instance(d, { tokenHasher: hasher({ pepper: NEW }) });

    const response = await api.request(listPath(d), { headers: bearer(token) });

    await expectInvalidToken(response);
  });

  it('accepts a token hashed under the previous pepper, re-hashes it under the current one and audits it', async () => {
    const d = await deployment();
    const { id, token } = await tokenUnderOldPepper(d);
    const oldHash = (await d.store.findTokenById(id))?.hash as string;
    const rotating = instance(d, { tokenHasher: hasher({ pepper: NEW, previousPepper: OLD }) });

    const response = await rotating.request(listPath(d), { headers: bearer(token) });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ executions: [], total: 0 });
    const stored = await d.store.findTokenById(id);
    expect(stored?.hash).not.toBe(oldHash);
    expect(await hasher({ pepper: NEW }).verify(stored?.hash as string, token)).toBe(true);
    expect(await hasher({ pepper: OLD }).verify(stored?.hash as string, token)).toBe(false);
    expect(rotating.audit.lines).toEqual([`[audit] token.rehash token_id=${id}`]);
    expect(rotating.audit.lines.join('\n')).not.toContain(token);
    // The previous pepper can now go: the new-pepper-only instance accepts the token.
    const after = instance(d, { tokenHasher: hasher({ pepper: NEW }) });
    expect((await after.request(listPath(d), { headers: bearer(token) })).status).toBe(200);
  });

  it('takes previousTokenPepper from createApi options and re-hashes once', async () => {
    const d = await deployment();
    const { id, token } = await tokenUnderOldPepper(d);
    // Default (OWASP) parameters: the fixture hashed with cheap ones, argon2 reads them from
    // the stored hash, so verification works; the re-hash uses the default parameters.
    const rotating = instance(d, { tokenPepper: NEW, previousTokenPepper: OLD });

    expect((await rotating.request(listPath(d), { headers: bearer(token) })).status).toBe(200);
    d.clock.advance(60_000);
    expect((await rotating.request(listPath(d), { headers: bearer(token) })).status).toBe(200);

    expect(rotating.audit.lines).toEqual([`[audit] token.rehash token_id=${id}`]);
    expect(
      await hasher({ pepper: NEW }).verify((await d.store.findTokenById(id))!.hash, token),
    ).toBe(true);
  });

  it('refuses a wrong secret for the token id under both peppers and re-hashes nothing', async () => {
    const d = await deployment();
    const { id, token } = await tokenUnderOldPepper(d);
    const before = await d.store.findTokenById(id);
    const rotating = instance(d, { tokenHasher: hasher({ pepper: NEW, previousPepper: OLD }) });
    const wrong = `${token.slice(0, -4)}${token.endsWith('0000') ? '1111' : '0000'}`;

    const response = await rotating.request(listPath(d), { headers: bearer(wrong) });

    await expectInvalidToken(response);
    expect(await d.store.findTokenById(id)).toEqual(before);
    expect(rotating.audit.lines).toEqual([
      `[audit] auth.denied method=GET path=/v1/executions reason=invalid_or_expired_token remote=203.0.113.7`,
    ]);
  });

  it('does not re-hash a revoked token: 401 and the stored record unchanged', async () => {
    const d = await deployment();
    const { id, token } = await tokenUnderOldPepper(d);
    await d.store.revokeToken(id);
    const before = await d.store.findTokenById(id);
    const rotating = instance(d, { tokenHasher: hasher({ pepper: NEW, previousPepper: OLD }) });

    const response = await rotating.request(listPath(d), { headers: bearer(token) });

    expect(response.status).toBe(401);
    expect(await d.store.findTokenById(id)).toEqual(before);
    expect(rotating.audit.lines.some((line) => line.includes('token.rehash'))).toBe(false);
  });

  it('answers 200 and keeps the old hash when the re-hash write fails; the failure is logged', async () => {
    const d = await deployment();
    const { id, token } = await tokenUnderOldPepper(d);
    const oldHash = (await d.store.findTokenById(id))?.hash;
    const failing = withStoreMethod(d.store, 'replaceTokenHash', async () => {
      throw new Error('connection lost');
    });
    const rotating = instance(
      { ...d, store: failing },
      { tokenHasher: hasher({ pepper: NEW, previousPepper: OLD }) },
    );

    const response = await rotating.request(listPath(d), { headers: bearer(token) });

    expect(response.status).toBe(200);
    expect((await d.store.findTokenById(id))?.hash).toBe(oldHash);
    expect(rotating.audit.lines).toEqual([]);
    expect(rotating.logs.messages()).toContain('[tokens] connection lost');
  });

  it('does not audit a re-hash another process won (compare-and-set answered false)', async () => {
    const d = await deployment();
    const { token } = await tokenUnderOldPepper(d);
    const lost = withStoreMethod(d.store, 'replaceTokenHash', async () => false);
    const rotating = instance(
      { ...d, store: lost },
      { tokenHasher: hasher({ pepper: NEW, previousPepper: OLD }) },
    );

    expect((await rotating.request(listPath(d), { headers: bearer(token) })).status).toBe(200);
    expect(rotating.audit.lines).toEqual([]);
  });
});

describe('createTokenHasher with a previous pepper', () => {
  it('says which pepper matched', async () => {
    const old = createTokenHasher({ ...CHEAP, pepper: OLD });
    const rotating = createTokenHasher({ ...CHEAP, pepper: NEW, previousPepper: OLD });
    const token = `cvg_${'ab'.repeat(20)}`;

    expect(await rotating.match?.(await old.hash(token), token)).toBe('previous');
    expect(await rotating.match?.(await rotating.hash(token), token)).toBe('current');
    expect(await rotating.match?.(await old.hash(token), `${token.slice(0, -1)}c`)).toBeNull();
    expect(await rotating.verify(await old.hash(token), token)).toBe(true);
    expect(await rotating.match?.('not a hash', token)).toBeNull();
  });

  it('ignores an empty previous pepper or one equal to the current pepper', async () => {
    const token = `cvg_${'cd'.repeat(20)}`;
    const stored = await createTokenHasher({ ...CHEAP, pepper: OTHER }).hash(token);
    for (const previousPepper of ['', NEW]) {
      const rotating = createTokenHasher({ ...CHEAP, pepper: NEW, previousPepper });
      const own = await rotating.hash(token);
      expect(await rotating.match?.(own, token)).toBe('current');
      expect(await rotating.match?.(stored, token)).toBeNull();
    }
  });

  it('refuses a previous pepper without a current one', () => {
    expect(() => createTokenHasher({ previousPepper: OLD })).toThrow(
      new RangeError('TOKEN_PEPPER_PREVIOUS needs TOKEN_PEPPER: the pepper it rotates to'),
    );
  });
});

describe('SERVICE_TOKEN rotation', () => {
  async function createSessionWith(
    api: ReturnType<typeof instance>,
    d: Deployment,
    token: string,
  ): Promise<Response> {
    return api.request('/v1/sessions/create', {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: 'usr_1', org_id: d.org.id }),
    });
  }

  it('accepts the current and the previous service token and nothing else', async () => {
    const d = await deployment();
    const api = instance(d, { serviceToken: NEW, previousServiceToken: OLD });

    expect((await createSessionWith(api, d, NEW)).status).toBe(201);
    expect((await createSessionWith(api, d, OLD)).status).toBe(201);
    for (const wrong of [OTHER, `${OLD}x`, OLD.slice(0, -1), 'x']) {
      const response = await createSessionWith(api, d, wrong);
      await expectInvalidToken(response);
    }
    const organisation = await api.request('/v1/organisations', {
      method: 'POST',
      headers: { ...bearer(OLD), 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'rotated-org', name: 'Rotated' }),
    });
    expect(organisation.status).toBe(201);
  });

  it('accepts no empty value when the previous service token is empty or equal to the current one', async () => {
    const d = await deployment();
    for (const previousServiceToken of ['', NEW]) {
      const api = instance(d, { serviceToken: NEW, previousServiceToken });
      expect((await createSessionWith(api, d, NEW)).status).toBe(201);
      const empty = await api.request('/v1/sessions/create', {
        method: 'POST',
        headers: { authorization: 'Bearer ', 'content-type': 'application/json' },
        body: JSON.stringify({ user_id: 'usr_1', org_id: d.org.id }),
      });
      expect(empty.status).toBe(401);
      expect((await createSessionWith(api, d, OLD)).status).toBe(401);
    }
  });

  it('does not accept a previous service token alone (no current one configured)', async () => {
    const d = await deployment();
    const api = instance(d, { previousServiceToken: OLD });

    const response = await createSessionWith(api, d, OLD);

    await expectInvalidToken(response);
  });
});

describe('SESSION_SECRET rotation', () => {
  async function sessionUnder(d: Deployment, secret: string) {
    const api = instance(d, { sessionSecret: secret, serviceToken: NEW });
    const response = await api.request('/v1/sessions/create', {
      method: 'POST',
      headers: { ...bearer(NEW), 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: 'usr_1', org_id: d.org.id }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { token: string; session_id: string };
  }

  it('keeps a session stored under the previous secret valid, and stores new ones under the current secret', async () => {
    const d = await deployment();
    const old = await sessionUnder(d, OLD);
    const rotating = instance(d, {
      sessionSecret: NEW,
      previousSessionSecret: OLD,
      serviceToken: NEW,
    });

    const current = await rotating.request('/v1/session', { headers: bearer(old.token) });

    expect(current.status).toBe(200);
    expect(await current.json()).toMatchObject({ session_id: old.session_id, org_id: d.org.id });
    const fresh = await rotating.request('/v1/sessions/create', {
      method: 'POST',
      headers: { ...bearer(NEW), 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: 'usr_2', org_id: d.org.id }),
    });
    const created = (await fresh.json()) as { token: string; session_id: string };
    const stored = await d.store.findSessionById(created.session_id);
    expect(stored?.tokenHash).toBe(hashSessionToken(created.token, NEW));
  });

  it('answers 401 for an old session once the previous secret is dropped', async () => {
    const d = await deployment();
    const old = await sessionUnder(d, OLD);
    const after = instance(d, { sessionSecret: NEW });

    const response = await after.request('/v1/session', { headers: bearer(old.token) });

    await expectInvalidToken(response);
  });

  it('still expires an old session at its expiry during the rotation', async () => {
    const d = await deployment();
    const old = await sessionUnder(d, OLD);
    const rotating = instance(d, { sessionSecret: NEW, previousSessionSecret: OLD });
    d.clock.advance(24 * 3600 * 1000);

    const response = await rotating.request('/v1/session', { headers: bearer(old.token) });

    await expectInvalidToken(response);
  });

  it('ignores an empty previous secret or one equal to the current secret', async () => {
    const d = await deployment();
    const old = await sessionUnder(d, OLD);
    const own = await sessionUnder(d, NEW);
    for (const previousSessionSecret of ['', NEW]) {
      const api = instance(d, { sessionSecret: NEW, previousSessionSecret });
      expect((await api.request('/v1/session', { headers: bearer(own.token) })).status).toBe(200);
      expect((await api.request('/v1/session', { headers: bearer(old.token) })).status).toBe(401);
    }
  });
});

describe('webhook secret rotation', () => {
  const PAYLOAD = JSON.stringify({ id: 'evt_rotation_1', type: 'invoice.paid' });

  function receivers(d: Deployment, secrets: (string | undefined)[]) {
    return instance(d, {
      webhooks: {
        providers: [
          { ...providerA, secret: NEW, secrets },
          { ...providerB, secret: NEW, secrets },
        ],
        onEvent: async () => undefined,
      },
    });
  }

  const postA = (api: ReturnType<typeof instance>, signature: string, body = PAYLOAD) =>
    api.request('/v1/webhooks/provider-a', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'provider-a-signature': signature },
      body,
    });
  const postB = (api: ReturnType<typeof instance>, signature: string, body = PAYLOAD) =>
    api.request('/v1/webhooks/provider-b', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-provider-b-signature': signature },
      body,
    });
  const now = START.getTime() / 1000;

  it('accepts events signed with the current or the previous secret, for each provider', async () => {
    const d = await deployment();
    const api = receivers(d, [OLD]);
    let n = 0;
    for (const secret of [NEW, OLD]) {
      n += 1;
      const body = JSON.stringify({ id: `evt_rot_${n}`, type: 'invoice.paid' });
      const a = await postA(api, stripeSignature(body, secret, now), body);
      expect(a.status).toBe(200);
      expect(await a.json()).toEqual({ received: true });
      const b = await postB(api, rawBodySignature(body, secret), body);
      expect(b.status).toBe(200);
      expect(await b.json()).toEqual({ received: true });
    }
  });

  it('refuses a signature made with any other secret, or with the empty key when the previous secret is empty', async () => {
    const d = await deployment();
    for (const secrets of [[OLD], [''], [NEW], [undefined]]) {
      const api = receivers(d, secrets);
      for (const secret of [OTHER, '']) {
        const a = await postA(api, stripeSignature(PAYLOAD, secret, now));
        expect(a.status).toBe(401);
        expect(await a.json()).toEqual({ error: 'invalid signature' });
        const b = await postB(api, rawBodySignature(PAYLOAD, secret));
        expect(b.status).toBe(401);
        expect(await b.json()).toEqual({ error: 'invalid signature' });
      }
    }
  });

  it('refuses signatures of the wrong length or alphabet under rotation without throwing', async () => {
    const d = await deployment();
    const api = receivers(d, [OLD]);
    const good = rawBodySignature(PAYLOAD, OLD);
    for (const signature of [
      good.slice(0, -2),
      `${good}00`,
      good.toUpperCase(),
      'zz',
      'x'.repeat(4096),
    ]) {
      const b = await postB(api, signature);
      expect(b.status).toBe(401);
      expect(await b.json()).toEqual({ error: 'invalid signature' });
      const a = await postA(api, `t=${now},v1=${signature}`);
      expect(a.status).toBe(401);
      expect(await a.json()).toEqual({ error: 'invalid signature' });
    }
  });
});
