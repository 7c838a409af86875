import { captureLogs, createCheapTokenHasher } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryAuditSink } from '../../src/audit/audit-sink.js';
import {
  type CovgateApi,
  createApi,
  createMemoryStore,
  createOrganisation,
  createSession,
  createToken,
  ProvisioningInputError,
  type Store,
} from '../../src/index.js';

const SESSION_SECRET = 'provisioning-session-secret-0123456789abcdef';
const NOW = new Date('2026-05-01T10:00:00Z');

function apiOver(store: Store, options: { sessionSecret?: string; tokenPepper?: string } = {}) {
  const audit = createMemoryAuditSink();
  const api = createApi({
    store,
    sessionSecret: options.sessionSecret ?? SESSION_SECRET,
    ...(options.tokenPepper ? { tokenPepper: options.tokenPepper } : {}),
    tokenHasher: createCheapTokenHasher(options.tokenPepper),
    logger: captureLogs().logger,
    auditSink: audit,
    clock: { now: () => NOW },
  });
  return { api, audit };
}

async function withOrganisation(slug = 'acme') {
  const store = createMemoryStore();
  const org = await createOrganisation(store, { slug });
  return { store, org };
}

function call(api: CovgateApi, path: string, token: string, init: RequestInit = {}) {
  return api.handle(
    new Request(`http://covgate.test${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    }),
  );
}

describe('createSession(api, ...)', () => {
  it("makes a session the API accepts, with the API's lifetime and audit sink", async () => {
    const { store, org } = await withOrganisation();
    const { api, audit } = apiOver(store);
    const session = await createSession(api, { org: 'acme', userId: 'alice' });
    expect(session).toEqual({
      token: expect.stringMatching(/^cvgs_[0-9a-f]{64}$/),
      sessionId: expect.stringMatching(/^ses_/),
      userId: 'alice',
      orgId: org.id,
      role: 'owner',
      expiresAt: new Date('2026-05-02T10:00:00Z'),
    });
    const current = await call(api, '/v1/session', session.token);
    expect(current.status).toBe(200);
    expect(await current.json()).toMatchObject({ org: 'acme', user_id: 'alice', role: 'owner' });
    expect(audit.lines).toEqual([
      `[audit] member.add org_id=${org.id} user_id=alice role=owner`,
      `[audit] session.create user_id=alice org_id=${org.id} session_id=${session.sessionId}`,
    ]);
  });

  it('joins later users as members, or with the role given, and keeps a member’s role', async () => {
    const { store, org } = await withOrganisation();
    const { api } = apiOver(store);
    await createSession(api, { org: org.id, userId: 'alice' });
    expect((await createSession(api, { org: org.id, userId: 'bob' })).role).toBe('member');
    expect((await createSession(api, { org: 'acme', userId: 'carol', role: 'admin' })).role).toBe(
      'admin',
    );
    expect((await createSession(api, { org: 'acme', userId: 'bob', role: 'owner' })).role).toBe(
      'member',
    );
  });

  it('refuses an unknown organisation, a malformed user id and store-only options', async () => {
    const { store } = await withOrganisation();
    const { api } = apiOver(store);
    await expect(createSession(api, { org: 'nope', userId: 'alice' })).rejects.toThrow(
      new ProvisioningInputError('org', 'unknown organisation: nope'),
    );
    await expect(createSession(api, { org: 'acme', userId: 'a b' })).rejects.toThrow(
      'invalid parameter: userId',
    );
    await expect(
      createSession(api, { org: 'acme', userId: 'alice' }, { sessionSecret: 'other' }),
    ).rejects.toThrow(
      'createSession: sessionSecret are options of a store target; an API uses its own (pass the store instead)',
    );
    const wrapped = {
      handle: api.handle,
      authenticate: api.authenticate,
      basePath: '',
      maxBodyBytes: api.maxBodyBytes,
    };
    await expect(createSession(wrapped, { org: 'acme', userId: 'alice' })).rejects.toThrow(
      'createSession: the API was not made by createApi; pass it or its Store',
    );
  });
});

describe('createSession(store, ...)', () => {
  it('makes a session that an API with the same secret accepts and one with another refuses', async () => {
    const { store } = await withOrganisation();
    const audit = createMemoryAuditSink();
    const session = await createSession(
      store,
      { org: 'acme', userId: 'ops' },
      {
        sessionSecret: SESSION_SECRET,
        sessionLifetimeSeconds: 3600,
        clock: { now: () => NOW },
        audit: { record: (event) => audit.write(event.type) },
      },
    );
    expect(session.expiresAt).toEqual(new Date('2026-05-01T11:00:00Z'));
    expect(audit.lines).toEqual(['member.add', 'session.create']);
    expect((await call(apiOver(store).api, '/v1/session', session.token)).status).toBe(200);
    const other = apiOver(store, { sessionSecret: 'another-secret-0123456789abcdef0123' }).api;
    expect((await call(other, '/v1/session', session.token)).status).toBe(401);
  });

  it('needs the session secret', async () => {
    const { store } = await withOrganisation();
    await expect(createSession(store, { org: 'acme', userId: 'ops' })).rejects.toThrow(
      'createSession: sessionSecret is required with a store',
    );
  });
});

describe('createToken', () => {
  it('makes an execute token that posts a run, listed by the API, audited by its sink', async () => {
    const { store, org } = await withOrganisation();
    const { api, audit } = apiOver(store);
    const token = await createToken(api, {
      org: 'acme',
      name: ' ci ',
      agentType: 'github-actions',
    });
    expect(token).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      secret: expect.stringMatching(/^cvg_[0-9a-f]{40}$/),
      orgId: org.id,
      name: 'ci',
      scopes: ['execute'],
      agentType: 'github-actions',
      createdAt: NOW,
    });
    const posted = await call(api, '/v1/executions', token.secret, {
      method: 'POST',
      body: JSON.stringify({ repo: 'web', branch: 'main', coverage: 84.13 }),
    });
    expect(posted.status).toBe(201);
    const { token: session } = await createSession(api, { org: 'acme', userId: 'alice' });
    const listed = (await (await call(api, '/v1/tokens', session)).json()) as {
      tokens: { id: string; name: string; status: string }[];
    };
    expect(listed.tokens).toEqual([
      expect.objectContaining({ id: token.id, name: 'ci', status: 'active' }),
    ]);
    expect(audit.lines[0]).toBe(
      `[audit] token.create org_id=${org.id} token_id=${token.id} scopes=[execute] agent_type=github-actions`,
    );
  });

  it("with a store, hashes under the server's pepper: only an API with that pepper accepts it", async () => {
    const { store } = await withOrganisation();
    const { secret } = await createToken(
      store,
      { org: 'acme', name: 'ci' },
      { tokenPepper: 'p-1' },
    );
    const run = (api: CovgateApi) =>
      call(api, '/v1/executions', secret, {
        method: 'POST',
        body: JSON.stringify({ repo: 'web', branch: 'main', coverage: 90 }),
      });
    expect((await run(apiOver(store, { tokenPepper: 'p-1' }).api)).status).toBe(201);
    expect((await run(apiOver(store).api)).status).toBe(401);
  });

  it.each([
    [{ org: 'acme', name: '' }, 'invalid parameter: name'],
    [{ org: 'acme', name: 'x'.repeat(101) }, 'invalid parameter: name'],
    [{ org: 'acme', name: 'ci\n' + 'x' }, 'invalid parameter: name'],
    [{ org: 'acme', name: 'ci', scopes: [] }, 'invalid parameter: scopes'],
    [{ org: 'acme', name: 'ci', scopes: ['admin'] }, 'invalid parameter: scopes'],
    [{ org: 'acme', name: 'ci', agentType: 'a b' }, 'invalid parameter: agentType'],
    [{ org: 'acme-2', name: 'ci' }, 'unknown organisation: acme-2'],
  ])('refuses %j: %s', async (input, message) => {
    const { store } = await withOrganisation();
    const { api } = apiOver(store);
    const error = await createToken(api, input as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProvisioningInputError);
    expect((error as Error).message).toBe(message);
    expect(await store.listTokensByOrg((await store.findOrganisationBySlug('acme'))!.id)).toEqual(
      [],
    );
  });
});
