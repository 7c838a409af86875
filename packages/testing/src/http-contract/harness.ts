import {
  type CreateApiOptions,
  createManualClock,
  createMemoryAuditSink,
  createMemoryStore,
  type Organisation,
  type Plan,
  type Role,
} from '@covgate/core';
import { afterAll, beforeAll } from 'vitest';
import { buildOrganisation } from '../fixtures.js';
import { captureLogs, createCheapTokenHasher } from '../test-api.js';
import { issueTestToken } from '../test-tokens.js';
import type {
  ContractContext,
  HttpContractOptions,
  StartedServer,
  StartServer,
} from './contract-types.js';

export type { ContractContext, HttpContractOptions, StartedServer, StartServer };

export const SERVICE_TOKEN = 'contract-service-token-0123456789abcdef0123456789';
/** `SESSION_SECRET` of every contract server (sign-in links are issued under it). */
export const CONTRACT_SESSION_SECRET = 'contract-session-secret-0123456789abcdef';
export const ALLOWED_ORIGIN = 'https://dashboard.example.com';
/** Start of the manual clock of every contract server. */
export const CONTRACT_START = new Date('2026-03-01T12:00:00Z');

/** Cheap argon2 parameters: the suite checks behaviour, not hashing cost. */
const testHasher = createCheapTokenHasher('contract-pepper');

/**
 * Starts one server for the enclosing `describe` and returns a context filled in before the
 * tests run. `overrides` changes API options for suites that need other settings.
 */
export function useContractServer(
  options: HttpContractOptions,
  overrides: Partial<CreateApiOptions> = {},
): ContractContext {
  const context = {} as ContractContext;
  let server: StartedServer | undefined;
  beforeAll(async () => {
    const store = options.createStore ? await options.createStore() : createMemoryStore();
    const audit = createMemoryAuditSink();
    const clock = createManualClock(CONTRACT_START);
    const logs = captureLogs();
    server = await options.start({
      store,
      sessionSecret: CONTRACT_SESSION_SECRET,
      serviceToken: SERVICE_TOKEN,
      allowedOrigins: [ALLOWED_ORIGIN],
      secureCookies: false,
      auditSink: audit,
      logger: logs.logger,
      clock,
      tokenHasher: testHasher,
      ...overrides,
    });
    const baseUrl = server.baseUrl;
    Object.assign(context, {
      baseUrl,
      store,
      clock,
      auditLines: audit.lines,
      logLines: logs.lines,
      serviceToken: SERVICE_TOKEN,
      allowedOrigin: ALLOWED_ORIGIN,
      request: (path: string, init?: RequestInit) => fetch(`${baseUrl}${path}`, init),
      async createOrganisation(plan: Plan = 'free') {
        const org = buildOrganisation({ plan, createdAt: clock.now() });
        await store.createOrganisation(org);
        return org;
      },
      async createSession(org: Organisation, userId = 'usr_contract', role?: Role) {
        const response = await fetch(`${baseUrl}/v1/sessions/create`, {
          method: 'POST',
          headers: { authorization: `Bearer ${SERVICE_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ user_id: userId, org_id: org.id, ...(role ? { role } : {}) }),
        });
        if (response.status !== 201) throw new Error(`session create: ${response.status}`);
        const body = (await response.json()) as { token: string; session_id: string };
        return { token: body.token, sessionId: body.session_id };
      },
      async createToken(org: Organisation, body: Record<string, unknown> = { name: 'ci' }) {
        const session = await context.createSession(org, 'usr_contract', 'owner');
        const response = await fetch(`${baseUrl}/v1/tokens`, {
          method: 'POST',
          headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        if (response.status !== 201) throw new Error(`token create: ${response.status}`);
        const created = (await response.json()) as { id: string; secret: string };
        return { id: created.id, secret: created.secret, sessionToken: session.token };
      },
      async insertToken(org: Organisation, scopes: string[]) {
        const { id, token } = await issueTestToken(store, {
          orgId: org.id,
          hasher: testHasher,
          name: 'inserted',
          scopes,
          createdAt: clock.now(),
        });
        return { id, secret: token };
      },
    } satisfies ContractContext);
  });
  afterAll(async () => {
    await server?.close();
    await context.store?.close();
  });
  return context;
}

/** JSON request headers with a bearer credential. */
export function bearerJson(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
}
