import { Writable } from 'node:stream';
import pino from 'pino';
import { createMemoryAuditSink } from '../../src/audit/audit-sink.js';
import { type CreateApiOptions, createApi } from '../../src/http/create-api.js';
import { createMemoryStore } from '../../src/storage/memory-store.js';
import type { Organisation } from '../../src/storage/store.js';
import { buildOrganisation } from '../../src/testing/fixtures.js';
import { issueTestToken } from '../../src/testing/test-tokens.js';
import { createManualClock } from '../../src/time/timestamp.js';
import { createTokenHasher } from '../../src/tokens/token-hash.js';

/** An API called in-process (no socket) with a memory store and captured logs. */
export async function apiFixture(overrides: Partial<CreateApiOptions> = {}) {
  const store = createMemoryStore();
  const audit = createMemoryAuditSink();
  const clock = createManualClock(new Date('2026-03-01T12:00:00Z'));
  // Tokens are inserted with the API's own hasher, so an injected one (a fake) verifies them.
  const hasher = overrides.tokenHasher ?? createTokenHasher({ memoryCost: 1024, timeCost: 1 });
  const logLines: string[] = [];
  const logger = pino(
    { base: null },
    new Writable({
      write(chunk, _encoding, done) {
        logLines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    }),
  );
  const api = createApi({
    store,
    sessionSecret: 'fixture-session-secret-0123456789abcdef',
    serviceToken: 'fixture-service-token-0123456789abcdef',
    secureCookies: false,
    auditSink: audit,
    logger,
    clock,
    tokenHasher: hasher,
    ...overrides,
  });
  const org: Organisation = buildOrganisation({ plan: 'enterprise' });
  await store.createOrganisation(org);

  async function insertToken() {
    const { id, token } = await issueTestToken(store, {
      orgId: org.id,
      hasher,
      name: 'fixture',
      createdAt: clock.now(),
    });
    return { id, token };
  }

  function get(path: string, token?: string, remoteAddress = '203.0.113.7') {
    return api.handle(
      new Request(`http://localhost${path}`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      }),
      { remoteAddress },
    );
  }

  return { api, store, audit, clock, org, insertToken, get, logLines };
}
