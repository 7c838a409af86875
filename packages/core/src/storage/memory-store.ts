import { memoryCommitReports } from './memory/commit-reports.js';
import { memoryExecutions } from './memory/executions.js';
import { memoryInvites } from './memory/invites.js';
import { memoryMemberships } from './memory/memberships.js';
import { memoryOrganisationLinks } from './memory/organisation-links.js';
import { memoryOrganisationSettings } from './memory/organisation-settings.js';
import { memoryOrganisations } from './memory/organisations.js';
import { memoryOutbox } from './memory/outbox.js';
import { memoryRepositoryLinks } from './memory/repository-links.js';
import { memoryRepositorySettings } from './memory/repository-settings.js';
import { memoryRetention } from './memory/retention.js';
import { memorySessions } from './memory/sessions.js';
import { memorySignInLinks } from './memory/sign-in-links.js';
import { createTables } from './memory/tables.js';
import { memoryTokens } from './memory/tokens.js';
import { memoryUsers } from './memory/users.js';
import { memoryWebhookEvents } from './memory/webhook-events.js';
import type { Store } from './store.js';

/** The store's methods: every one answers a promise. */
type Methods = Record<string, (...args: never[]) => Promise<unknown>>;

/**
 * Creates an empty in-memory {@link Store}: the reference implementation that the
 * conformance suite in `@covgate/testing/vitest` is written against. Data lives only as long
 * as the process; use it for tests, development and single-process demos.
 *
 * Each entity's methods live in `memory/<entity>.ts` over one set of tables
 * (`memory/tables.ts`). Every method runs to completion without yielding, which makes each one
 * atomic and makes concurrent claims, rotations and find-or-create calls exact.
 */
export function createMemoryStore(): Store {
  const tables = createTables();
  const executions = memoryExecutions(tables);
  const methods = {
    ...memoryOrganisations(tables),
    ...memoryOrganisationSettings(tables),
    ...memoryUsers(tables),
    ...memoryTokens(tables),
    ...memorySessions(tables),
    ...memoryMemberships(tables),
    ...memoryInvites(tables),
    ...memoryOrganisationLinks(tables),
    ...memorySignInLinks(tables),
    ...executions,
    ...memoryCommitReports(tables, executions),
    ...memoryRepositorySettings(tables),
    ...memoryRepositoryLinks(tables),
    ...memoryOutbox(tables),
    ...memoryWebhookEvents(tables),
    ...memoryRetention(tables),
  } satisfies Omit<Store, 'ping' | 'close'>;
  let closed = false;
  return {
    // ping always answers while open: memory never stalls.
    ...whileOpen({ ...methods, ping: async () => {} }, () => closed),
    close: async () => {
      closed = true;
    },
  };
}

/** `methods`, each rejecting once `isClosed()` says the store is closed. */
function whileOpen<T extends Methods>(methods: T, isClosed: () => boolean): T {
  const guarded: Methods = {};
  for (const [name, method] of Object.entries(methods)) {
    guarded[name] = (...args) =>
      isClosed() ? Promise.reject(new Error('memory store is closed')) : method(...args);
  }
  return guarded as T;
}
