import { Writable } from 'node:stream';
import {
  type AuditSink,
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
  type Role,
  type Store,
  type TokenHasher,
} from '@covgate/core';
import type { StoreLogger } from '@covgate/core/storage-kit';
import pino, { type Logger } from 'pino';
import { buildOrganisation } from './fixtures.js';
import { issueTestToken } from './test-tokens.js';

/** Where a test API pretends to live; its requests never leave the process. */
export const TEST_API_ORIGIN = 'http://covgate.test';
/** The dashboard origin on a test API's CORS allowlist. */
export const TEST_DASHBOARD_ORIGIN = 'https://dashboard.example.com';
/** The `SERVICE_TOKEN` of a test API. */
export const TEST_SERVICE_TOKEN = 'test-service-token-0123456789abcdef0123456789';
/** The `SESSION_SECRET` of a test API. */
export const TEST_SESSION_SECRET = 'test-session-secret-0123456789abcdef0123';
/** Where a test API's manual clock starts. */
export const TEST_START = new Date('2026-03-01T12:00:00Z');
/** The client address a test API's requests come from unless told otherwise. */
export const TEST_REMOTE_ADDRESS = '203.0.113.7';

/**
 * A token hasher with the cheapest argon2id parameters (1 MiB, one pass): for tests that
 * check behaviour, never for a deployment.
 */
export function createCheapTokenHasher(pepper?: string): TokenHasher {
  return createTokenHasher({ memoryCost: 1024, timeCost: 1, ...(pepper ? { pepper } : {}) });
}

const cheapHasher = createCheapTokenHasher();

/** A pino logger whose lines are kept in memory. */
export interface LogCapture {
  /** The logger to give the API. */
  logger: Logger;
  /** A store's `logger` option writing into the same capture, at level `error`. */
  storeLogger: StoreLogger;
  /** Every line so far, raw JSON text. */
  rawLines: string[];
  /** Every line so far, parsed. */
  lines(): Record<string, unknown>[];
  /** The `msg` of every line so far (access-log lines are `request`). */
  messages(): string[];
}

/** A pino logger (`base: null`) that keeps its lines; see {@link LogCapture}. */
export function captureLogs(): LogCapture {
  const rawLines: string[] = [];
  const logger = pino(
    { base: null },
    new Writable({
      write(chunk, _encoding, done) {
        rawLines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    }),
  );
  const lines = () => rawLines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    logger,
    storeLogger: { error: (line) => logger.error(line) },
    rawLines,
    lines,
    messages: () => lines().map((line) => String(line.msg)),
  };
}

/**
 * Options of {@link createTestApi}: any `createApi` option (they win over the test defaults),
 * a manual `clock`, and `logs` to share one capture with a store's logger.
 */
export type TestApiOptions = Omit<Partial<CreateApiOptions>, 'clock'> & {
  /** Default: a manual clock at {@link TEST_START}. */
  clock?: ManualClock;
  /** Default: a new {@link captureLogs}; its logger is the API's unless `logger` is given. */
  logs?: LogCapture;
};

/** {@link TestApiOptions}, or a function of the default store and clock that makes them. */
export type TestApiOverrides =
  | TestApiOptions
  | ((base: { store: Store; clock: ManualClock }) => TestApiOptions);

/** An API built by {@link createTestApi}, with what tests need to drive and observe it. */
export interface TestApi {
  api: CovgateApi;
  store: Store;
  clock: ManualClock;
  logs: LogCapture;
  audit: AuditSink & { lines: string[] };
  tokenHasher: TokenHasher;
  /** `api.handle` on `${TEST_API_ORIGIN}${path}` (or an absolute URL), without a socket. */
  request(path: string, init?: RequestInit, remoteAddress?: string): Promise<Response>;
  /** An organisation stored directly, created now on the clock. */
  createOrganisation(plan?: Plan): Promise<Organisation>;
  /**
   * A session through `POST /v1/sessions/create`; a user who is not a member joins with `role`
   * (default: owner for the organisation's first member, else member).
   */
  createSession(
    org: Organisation,
    userId?: string,
    role?: Role,
  ): Promise<{ token: string; sessionId: string }>;
  /** An API token (scopes `execute` unless given) inserted straight into the store. */
  insertToken(
    org: Organisation,
    options?: { name?: string; scopes?: string[] },
  ): Promise<{ id: string; secret: string }>;
}

/**
 * Builds a covgate API called in-process (no socket) for tests under any runner: a memory
 * store, a manual clock at {@link TEST_START}, the cheap token hasher, a memory audit sink
 * and captured logs, with test secrets, insecure cookies and {@link TEST_DASHBOARD_ORIGIN}
 * allowed. Every part can be replaced through `overrides`.
 */
export function createTestApi(overrides: TestApiOverrides = {}): TestApi {
  const defaults = { store: createMemoryStore(), clock: createManualClock(TEST_START) };
  const options = typeof overrides === 'function' ? overrides(defaults) : overrides;
  const { logs = captureLogs(), ...apiOptions } = options;
  const store = options.store ?? defaults.store;
  const clock = options.clock ?? defaults.clock;
  const tokenHasher = options.tokenHasher ?? cheapHasher;
  const audit = createMemoryAuditSink();
  const api = createApi({
    sessionSecret: TEST_SESSION_SECRET,
    serviceToken: TEST_SERVICE_TOKEN,
    allowedOrigins: [TEST_DASHBOARD_ORIGIN],
    secureCookies: false,
    auditSink: audit,
    logger: logs.logger,
    ...apiOptions,
    store,
    clock,
    tokenHasher,
  });
  const request = (path: string, init?: RequestInit, remoteAddress = TEST_REMOTE_ADDRESS) =>
    api.handle(new Request(path.startsWith('http') ? path : `${TEST_API_ORIGIN}${path}`, init), {
      remoteAddress,
    });
  return {
    api,
    store,
    clock,
    logs,
    audit,
    tokenHasher,
    request,
    async createOrganisation(plan: Plan = 'free') {
      const org = buildOrganisation({ plan, createdAt: clock.now() });
      await store.createOrganisation(org);
      return org;
    },
    async createSession(org: Organisation, userId = 'usr_test', role?: Role) {
      const response = await request('/v1/sessions/create', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TEST_SERVICE_TOKEN}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ user_id: userId, org_id: org.id, ...(role ? { role } : {}) }),
      });
      if (response.status !== 201) throw new Error(`session create: ${response.status}`);
      const body = (await response.json()) as { token: string; session_id: string };
      return { token: body.token, sessionId: body.session_id };
    },
    async insertToken(org: Organisation, token: { name?: string; scopes?: string[] } = {}) {
      const { id, token: secret } = await issueTestToken(store, {
        orgId: org.id,
        hasher: tokenHasher,
        name: token.name ?? 'ci',
        ...(token.scopes ? { scopes: token.scopes } : {}),
        createdAt: clock.now(),
      });
      return { id, secret };
    },
  };
}
