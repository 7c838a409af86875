import type { Store } from '@covgate/core';
import { afterEach, beforeEach, describe } from 'vitest';
import { describeCommitReports } from './commit-reports.js';
import { describeConcurrency } from './concurrency.js';
import { describeExecutionFilters } from './execution-filters.js';
import { describeExecutions } from './executions.js';
import { describeFeedbackDecisions } from './feedback-decisions.js';
import { describeIdempotencyKeys } from './idempotency-keys.js';
import { describeInvites } from './invites.js';
import { describeLineData } from './line-data.js';
import { describeMemberships } from './memberships.js';
import type { StoreConformanceOptions } from './options.js';
import { describeOrganisationLinks } from './organisation-links.js';
import { describeOrganisationSettings } from './organisation-settings.js';
import { describeOrganisations } from './organisations.js';
import { describeOutbox } from './outbox.js';
import { describePatchAndComponents } from './patch-components.js';
import { describeRetention } from './retention.js';
import { describeSessions } from './sessions.js';
import { describeSignInLinks } from './sign-in-links.js';
import { describeSkippedRuns } from './skipped-runs.js';
import { describeTokenHashes } from './token-hashes.js';
import { describeTokens } from './tokens.js';
import { describeUsers } from './users.js';
import { describeWebhookEvents } from './webhook-events.js';

export type { StoreConformanceOptions };

/**
 * Registers the storage conformance tests (vitest `describe`/`it`) for a `Store`
 * implementation: every method of every storage interface, its ordering, uniqueness and
 * atomicity guarantees, and behaviour under concurrent calls. Call it at the top level of a
 * test file:
 *
 * ```ts
 * runStoreConformanceSuite('memory', { createStore: async () => createMemoryStore() });
 * ```
 */
export function runStoreConformanceSuite(name: string, options: StoreConformanceOptions): void {
  describe(`${name} store conformance`, () => {
    let current: Store | undefined;
    let peer: Store | undefined;

    beforeEach(async () => {
      current = await options.createStore();
      peer = await options.createPeerStore?.();
    });

    afterEach(async () => {
      const stores = [current, peer];
      current = undefined;
      peer = undefined;
      await Promise.all(stores.map((store) => store?.close()));
    });

    const store = (): Store => {
      if (!current) throw new Error('the store is only available inside a test');
      return current;
    };

    describeOrganisations(store);
    describeUsers(store);
    describeTokens(store);
    describeTokenHashes(store, () => peer ?? store());
    describeSessions(store);
    describeSignInLinks(store, () => peer ?? store());
    describeMemberships(store, () => peer ?? store());
    describeInvites(store, () => peer ?? store());
    describeOrganisationLinks(store, () => peer ?? store());
    describeOrganisationSettings(store, () => peer ?? store());
    describeExecutions(store);
    describeExecutionFilters(store);
    describeSkippedRuns(store);
    describeFeedbackDecisions(store);
    describePatchAndComponents(store);
    describeLineData(store);
    describeCommitReports(store);
    describeIdempotencyKeys(store);
    describeWebhookEvents(store);
    describeOutbox(store, () => peer ?? store());
    describeRetention(store, () => peer ?? store());
    describeConcurrency(store, () => peer ?? store());
  });
}
