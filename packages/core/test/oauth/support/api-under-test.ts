import { Writable } from 'node:stream';
import {
  type CovgateApi,
  type CreateApiOptions,
  createApi,
  createManualClock,
  createMemoryAuditSink,
  createMemoryStore,
  createTokenHasher,
  type ManualClock,
  type Organisation,
  type Plan,
  type Store,
} from '@covgate/core';
import { buildOrganisation, issueTestToken } from '@covgate/core/testing';
import pino from 'pino';

/** Where the API under test pretends to live; requests never leave the process. */
export const API_ORIGIN = 'http://covgate.test';
/** The dashboard origin on the CORS allowlist. */
export const DASHBOARD_ORIGIN = 'https://dashboard.example.com';
export const SERVICE_TOKEN = 'test-service-token-0123456789abcdef0123456789';
export const SESSION_SECRET = 'test-session-secret-0123456789abcdef0123';
export const START = new Date('2026-03-01T12:00:00Z');

/** Cheap argon2 parameters: these tests check behaviour, not hashing cost. */
const hasher = createTokenHasher({ memoryCost: 1024, timeCost: 1 });

/** A covgate API in memory, with what tests need to drive and observe it. */
export interface ApiUnderTest {
  api: CovgateApi;
  store: Store;
  clock: ManualClock;
  /** The `msg` of every log line so far (access-log lines are `request`). */
  logMessages(): string[];
  /** Every log line so far, raw JSON text. */
  rawLog(): string;
  auditLines: string[];
  /** `api.handle` on `${API_ORIGIN}${path}` (or an absolute URL). */
  request(path: string, init?: RequestInit): Promise<Response>;
  createOrganisation(plan?: Plan): Promise<Organisation>;
  /** A session through `POST /v1/sessions/create`. */
  createSession(org: Organisation): Promise<{ token: string; sessionId: string }>;
  /** An `execute` API token inserted straight into the store. */
  insertToken(org: Organisation): Promise<{ id: string; secret: string }>;
}

/** Options for an API under test, or a function of its store and clock that makes them. */
export type TestOverrides =
  | Partial<CreateApiOptions>
  | ((base: { store: Store; clock: ManualClock }) => Partial<CreateApiOptions>);

/** Builds an API on a memory store, a manual clock and captured logs; `overrides` win. */
export function createApiUnderTest(overrides: TestOverrides = {}): ApiUnderTest {
  const store = createMemoryStore();
  const clock = createManualClock(START);
  const audit = createMemoryAuditSink();
  const lines: string[] = [];
  const logger = pino(
    { base: null },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    }),
  );
  const api = createApi({
    store,
    sessionSecret: SESSION_SECRET,
    serviceToken: SERVICE_TOKEN,
    allowedOrigins: [DASHBOARD_ORIGIN],
    secureCookies: false,
    auditSink: audit,
    logger,
    clock,
    tokenHasher: hasher,
    ...(typeof overrides === 'function' ? overrides({ store, clock }) : overrides),
  });
  const request = (path: string, init?: RequestInit) =>
    api.handle(new Request(path.startsWith('http') ? path : `${API_ORIGIN}${path}`, init), {
      remoteAddress: '203.0.113.7',
    });
  return {
    api,
    store,
    clock,
    logMessages: () => lines.map((line) => String((JSON.parse(line) as { msg?: unknown }).msg)),
    rawLog: () => lines.join('\n'),
    auditLines: audit.lines,
    request,
    async createOrganisation(plan: Plan = 'free') {
      const org = buildOrganisation({ plan, createdAt: clock.now() });
      await store.createOrganisation(org);
      return org;
    },
    async createSession(org: Organisation) {
      const response = await request('/v1/sessions/create', {
        method: 'POST',
        headers: { authorization: `Bearer ${SERVICE_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ user_id: 'usr_test', org_id: org.id }),
      });
      if (response.status !== 201) throw new Error(`session create: ${response.status}`);
      const body = (await response.json()) as { token: string; session_id: string };
      return { token: body.token, sessionId: body.session_id };
    },
    async insertToken(org: Organisation) {
      const { id, token } = await issueTestToken(store, {
        orgId: org.id,
        hasher,
        name: 'ci',
        createdAt: clock.now(),
      });
      return { id, secret: token };
    },
  };
}

/** The `Set-Cookie` values of a response. */
export function setCookies(response: Response): string[] {
  return response.headers.getSetCookie();
}

/** The `Set-Cookie` value of the cookie called `name`, or undefined. */
export function setCookie(response: Response, name: string): string | undefined {
  return setCookies(response).find((cookie) => cookie.startsWith(`${name}=`));
}

/** `name=value` of a `Set-Cookie` value, ready for a `Cookie` header. */
export function cookiePair(setCookieValue: string): string {
  return setCookieValue.split(';', 1)[0] as string;
}
