import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AuditLogger } from '../audit/audit-sink.js';
import type { DeliveryRecord, RepositoryLink, Store } from '../storage/store.js';
import { type Clock, systemClock } from '../time/timestamp.js';
import { runFileChanges } from './comment-files.js';
import { parseDeliveryPayload } from './delivery-payload.js';
import { createGithubSender, type GithubSender, type SendResult } from './github-sender.js';
import {
  type AttemptDecision,
  DEFAULT_RETRY_POLICY,
  decideAfterAttempt,
  type RetryPolicy,
} from './retry-policy.js';
import { withFilesLost } from './run-feedback.js';

/** Where the worker writes its lines (a pino logger fits). */
export interface OutboxLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Options of {@link startOutboxWorker}. */
export interface OutboxWorkerOptions {
  store: Store;
  logger: OutboxLogger;
  /**
   * The token to send a repository's deliveries with, from its link (whose `credential` is
   * the ciphertext the linking API stored). A throw fails the delivery: the credential cannot
   * be used.
   */
  decryptCredential: (link: RepositoryLink) => string | Promise<string>;
  /** Receives `repository.credential.use` for each use of a credential. */
  audit?: AuditLogger;
  /** The `fetch` GitHub requests go through (tests point it anywhere; default the global). */
  fetch?: typeof fetch;
  clock?: Clock;
  /** In [0, 1): the back-off's jitter (default `Math.random`). */
  random?: () => number;
  /** This sender's name in leases (default host name, process id and a random suffix). */
  owner?: string;
  /** How often the worker looks for due deliveries when not nudged (default 5 s). */
  pollIntervalMs?: number;
  /** How long a claim holds its deliveries (default 120 s). */
  leaseMs?: number;
  /** Deliveries claimed at once (default 10). */
  batchSize?: number;
  /** How long one GitHub request may take (default 10 s). */
  requestTimeoutMs?: number;
  /** Back-off and attempts (default {@link DEFAULT_RETRY_POLICY}). */
  retry?: Partial<RetryPolicy>;
  /** The sender (tests inject one; default {@link createGithubSender} with `fetch`). */
  sender?: GithubSender;
}

/** One pass of the outbox: what {@link startOutboxWorker} runs in a loop. */
export interface OutboxDispatcher {
  /**
   * Claims one batch of due deliveries and sends them; resolves with how many it claimed.
   * `stopping` is asked before each send: once it says yes, the rest of the batch is handed
   * back, due at once, for the next claim of any process.
   */
  runOnce(stopping?: () => boolean): Promise<number>;
}

/** A running outbox worker. */
export interface OutboxWorker {
  /** Looks for due deliveries now (the API calls it after an ingest enqueued some). */
  nudge(): void;
  /** Stops polling and waits for the batch in flight; call it before closing the store. */
  stop(): Promise<void>;
}

/**
 * The outbox's sender without its loop: each {@link OutboxDispatcher.runOnce} claims due
 * deliveries with a lease (so of several server processes on one database, one sends each),
 * sends them to GitHub with the repository's credential, and records the outcome: sent, retried
 * later with back-off (or when a rate limit ends), or failed with the reason.
 */
export function createOutboxDispatcher(options: OutboxWorkerOptions): OutboxDispatcher {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const leaseMs = options.leaseMs ?? 120_000;
  const batchSize = options.batchSize ?? 10;
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  const sender =
    options.sender ??
    createGithubSender({ requestTimeoutMs, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const { store, logger } = options;
  /** Until when each credential (by a digest of its token) is rate-limited. */
  const pausedUntil = new Map<string, number>();

  const runOnce = async (stopping: () => boolean = () => false): Promise<number> => {
    const now = clock.now();
    const claimed = await store.claimDeliveries(owner, now, leaseMs, batchSize);
    for (const [index, delivery] of claimed.entries()) {
      // Sending past the lease would race the sender that takes the rest over; a stopping
      // process hands the rest back at once rather than leaving them leased.
      const leaseLeft = (delivery.leaseUntil?.getTime() ?? 0) - clock.now().getTime();
      if (stopping() || leaseLeft < 3 * requestTimeoutMs) {
        await release(claimed.slice(index), stopping() ? 'the server stopped' : 'lease ran out');
        break;
      }
      await handle(delivery).catch((error: unknown) => {
        logger.error(
          `[outbox] delivery ${delivery.id} not recorded: ${(error as Error)?.message ?? String(error)}`,
        );
      });
    }
    return claimed.length;
  };

  /** Puts claimed deliveries back unsent, due now, for the next claim of any process. */
  const release = async (unsent: DeliveryRecord[], why: string): Promise<void> => {
    const at = clock.now();
    for (const delivery of unsent) {
      await store
        .deferDelivery(delivery.id, owner, {
          at,
          nextAttemptAt: at,
          error: `not sent: ${why}`,
          status: null,
        })
        .catch(() => {});
    }
    logger.info(`[outbox] handed ${unsent.length} claimed deliveries back (${why})`);
  };

  const handle = async (delivery: DeliveryRecord): Promise<void> => {
    const payload = parseDeliveryPayload(delivery.kind, delivery.payload);
    if (payload === null) return fail(delivery, 'unreadable payload (written by another version?)');
    const link = await store.findRepositoryLink(delivery.orgId, delivery.repo);
    if (link === null) return fail(delivery, 'the repository is no longer linked to GitHub');
    if (link.githubRepo !== payload.github_repo) {
      return fail(
        delivery,
        `the repository is now linked to ${link.githubRepo}, not ${payload.github_repo}`,
      );
    }
    let token: string;
    try {
      token = await options.decryptCredential(link);
    } catch {
      return fail(delivery, 'the credential could not be decrypted (was SESSION_SECRET changed?)');
    }
    const key = createHash('sha256').update(`${link.apiUrl}\n${token}`).digest('hex');
    const paused = pausedUntil.get(key) ?? 0;
    if (paused > clock.now().getTime()) {
      await settle(delivery, {
        action: 'retry',
        at: new Date(paused),
        reason: `GitHub rate limit: waiting until ${new Date(paused).toISOString()}`,
        rateLimited: true,
      });
      return;
    }
    const comment =
      'sha' in payload
        ? null
        : {
            ...payload,
            body: withFilesLost(
              payload.body,
              await runFileChanges(store, delivery.orgId, payload.execution_id),
            ),
          };
    options.audit?.record({
      type: 'repository.credential.use',
      orgId: delivery.orgId,
      repo: delivery.repo,
      deliveryId: delivery.id,
    });
    const target = { apiUrl: link.apiUrl, token };
    const result: SendResult =
      'sha' in payload
        ? await sender.setStatus(target, payload)
        : await sender.upsertComment(target, comment ?? payload);
    if (result.ok) {
      await store.markDeliverySent(delivery.id, owner, clock.now());
      return;
    }
    const decision = decideAfterAttempt({
      answer: result.answer,
      attempts: delivery.attempts,
      now: clock.now(),
      policy,
      random,
    });
    if (decision.action === 'retry' && decision.rateLimited) {
      pausedUntil.set(key, decision.at.getTime());
    }
    await settle(delivery, decision, result.answer.status);
  };

  const settle = async (
    delivery: DeliveryRecord,
    decision: AttemptDecision,
    status: number | null = null,
  ): Promise<void> => {
    const at = clock.now();
    if (decision.action === 'fail') return fail(delivery, decision.reason, status);
    // A rate limit's wait is not an attempt: it neither brings the give-up nearer nor grows
    // the back-off, however long the code host asks to wait.
    const putBack = decision.rateLimited ? store.deferDelivery : store.retryDelivery;
    await putBack.call(store, delivery.id, owner, {
      at,
      nextAttemptAt: decision.at,
      error: decision.reason,
      status,
    });
    const which = decision.rateLimited ? 'held back' : `attempt ${delivery.attempts} not sent`;
    logger.warn(
      `[outbox] ${describe(delivery)} ${which} (${decision.reason}); next attempt at ${decision.at.toISOString()}`,
    );
  };

  const fail = async (
    delivery: DeliveryRecord,
    reason: string,
    status: number | null = null,
  ): Promise<void> => {
    await store.failDelivery(delivery.id, owner, { at: clock.now(), error: reason, status });
    logger.warn(`[outbox] ${describe(delivery)} failed: ${reason}`);
  };

  return { runOnce };
}

/**
 * Starts the outbox's worker: a {@link createOutboxDispatcher} pass now, then every
 * `pollIntervalMs` (5 s) or as soon as {@link OutboxWorker.nudge} is called, and right away
 * while batches come back full. A failure here is logged and never reaches ingest.
 */
export function startOutboxWorker(options: OutboxWorkerOptions): OutboxWorker {
  const dispatcher = createOutboxDispatcher(options);
  const pollIntervalMs = options.pollIntervalMs ?? 5_000;
  const batchSize = options.batchSize ?? 10;
  let stopped = false;
  let nudged = false;
  let wake: (() => void) | null = null;

  const sleep = () =>
    new Promise<void>((resolve) => {
      if (nudged || stopped) {
        nudged = false;
        resolve();
        return;
      }
      const timer = setTimeout(done, pollIntervalMs);
      timer.unref?.();
      function done() {
        clearTimeout(timer);
        wake = null;
        nudged = false;
        resolve();
      }
      wake = done;
    });

  const loop = (async () => {
    while (!stopped) {
      let claimed = 0;
      try {
        claimed = await dispatcher.runOnce(() => stopped);
      } catch (error) {
        // The store logged its failure; the next poll tries again.
        options.logger.error(
          `[outbox] claim failed: ${(error as Error)?.message ?? String(error)}`,
        );
      }
      if (claimed < batchSize) await sleep();
    }
  })();

  return {
    nudge() {
      nudged = true;
      wake?.();
    },
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}

function describe(delivery: DeliveryRecord): string {
  return `delivery ${delivery.id} (${delivery.kind} of ${delivery.repo}, run ${delivery.executionId})`;
}
