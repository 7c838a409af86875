import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AuditLogger } from '../audit/audit-sink.js';
import type { HostResolver, PrivateCodeHostAllowance } from '../code-hosts/code-host-address.js';
import type {
  DeliveryRecord,
  DeliverySentResult,
  RepositoryLink,
  Store,
} from '../storage/store.js';
import { type Clock, systemClock } from '../time/timestamp.js';
import { runFileChanges } from './comment-files.js';
import { runMissedLines, withMissedLines } from './comment-missed-lines.js';
import { parseDeliveryPayload } from './delivery-payload.js';
import { FEEDBACK_HOSTS } from './feedback-hosts.js';
import { createFeedbackSender, type FeedbackSender, type SendResult } from './feedback-sender.js';
import {
  type AttemptDecision,
  backoffDelayMs,
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
  /**
   * The `fetch` code-host requests go through (tests point it anywhere). Default: one that
   * connects only to public addresses unless `allowPrivateCodeHosts` allows others.
   */
  fetch?: typeof fetch;
  /**
   * Non-public addresses (loopback, private, link-local...) a repository link's `api_url`
   * may reach (`ALLOW_PRIVATE_CODE_HOSTS`): `true` for all, or addresses and CIDR ranges.
   * Default none: such a delivery fails with `address refused`.
   */
  allowPrivateCodeHosts?: PrivateCodeHostAllowance;
  /** How host names are resolved for that check (tests inject one; default the system's). */
  resolveHost?: HostResolver;
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
  /** How long one code-host request may take (default 10 s). */
  requestTimeoutMs?: number;
  /** Back-off and attempts (default {@link DEFAULT_RETRY_POLICY}). */
  retry?: Partial<RetryPolicy>;
  /**
   * The sender (tests inject one; default {@link createFeedbackSender} with `fetch`, sending
   * each delivery to its repository's code host).
   */
  sender?: FeedbackSender;
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
 * sends them to the repository's code host with its credential, and records the outcome: sent, retried
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
    createFeedbackSender({
      requestTimeoutMs,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.allowPrivateCodeHosts === undefined
        ? {}
        : { allowPrivateCodeHosts: options.allowPrivateCodeHosts }),
      ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    });
  const { store, logger } = options;
  /** Until when each credential (by a digest of its token) is rate-limited. */
  const pausedUntil = new Map<string, number>();
  /** Outcomes reached but not written because the store failed, by delivery id. */
  const unrecorded = new Map<string, { delivery: DeliveryRecord; outcome: Outcome }>();
  /** Whether this sender may hold deliveries it lost track of in a store failure. */
  let handBackOwed = false;

  const runOnce = async (stopping: () => boolean = () => false): Promise<number> => {
    if (handBackOwed || unrecorded.size > 0) await recover();
    let claimed: DeliveryRecord[];
    try {
      claimed = await store.claimDeliveries(owner, clock.now(), leaseMs, batchSize);
    } catch (error) {
      // The claim may have been stored with its answer lost: those deliveries are ours.
      handBackOwed = true;
      throw error;
    }
    for (const [index, delivery] of claimed.entries()) {
      // Sending past the lease would race the sender that takes the rest over; a stopping
      // process hands the rest back at once rather than leaving them leased.
      const leaseLeft = (delivery.leaseUntil?.getTime() ?? 0) - clock.now().getTime();
      if (stopping() || leaseLeft < 3 * requestTimeoutMs) {
        await release(claimed.slice(index), stopping() ? 'the server stopped' : 'lease ran out');
        break;
      }
      const outcome = await attempt(delivery);
      try {
        await record(delivery, outcome);
      } catch (error) {
        // The store fails: the rest of the batch would fail alike. The outcome is written and
        // the rest handed back as soon as the store answers, not when their lease lapses.
        unrecorded.set(delivery.id, { delivery, outcome });
        handBackOwed = true;
        logger.error(
          `[outbox] delivery ${delivery.id} not recorded: ${messageOf(error)}; recorded, and the other ${claimed.length - index - 1} claimed handed back, once the store answers`,
        );
        break;
      }
    }
    return claimed.length;
  };

  /**
   * After a store failure: writes the outcomes kept, then hands back every delivery this
   * sender still holds (the rest of a batch, a claim whose answer was lost), due at once.
   * Throws while the store still fails; the next pass tries again.
   */
  const recover = async (): Promise<void> => {
    for (const [id, { delivery, outcome }] of unrecorded) {
      await record(delivery, outcome);
      unrecorded.delete(id);
    }
    const released = await store.releaseDeliveries(owner, clock.now());
    handBackOwed = false;
    if (released > 0) {
      logger.info(`[outbox] handed ${released} claimed deliveries back (the store failed)`);
    }
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
        .catch(() => {
          handBackOwed = true;
        });
    }
    logger.info(`[outbox] handed ${unsent.length} claimed deliveries back (${why})`);
  };

  /** The outcome `decision` reached now, with the answer's status. */
  const ended = (decision: Outcome['decision'], status: number | null = null): Outcome => ({
    decision,
    endedAt: clock.now(),
    status,
  });

  /**
   * Sends the delivery and answers how it ended. A store read that fails before anything is
   * sent makes a retry after back-off (the attempt counts, so a fault that stays is not
   * retried in a tight loop).
   */
  const attempt = async (delivery: DeliveryRecord): Promise<Outcome> => {
    try {
      return await send(delivery);
    } catch (error) {
      const nextAttemptAt = new Date(
        clock.now().getTime() + backoffDelayMs(delivery.attempts, policy, random),
      );
      return ended({
        action: 'retry',
        at: nextAttemptAt,
        reason: `the store failed before the send: ${messageOf(error)}`,
        rateLimited: false,
      });
    }
  };

  const send = async (delivery: DeliveryRecord): Promise<Outcome> => {
    const fail = (reason: string) => ended({ action: 'fail', reason });
    const payload = parseDeliveryPayload(delivery.kind, delivery.payload);
    if (payload === null) return fail('unreadable payload (written by another version?)');
    const host = FEEDBACK_HOSTS[payload.host];
    const link = await store.findRepositoryLink(delivery.orgId, delivery.repo);
    if (link === null) return fail(`the repository is no longer linked to ${host.name}`);
    if (link.host !== payload.host) {
      return fail(
        `the repository is now linked to ${FEEDBACK_HOSTS[link.host].name} ${link.repository}, not ${host.name} ${payload.repository}`,
      );
    }
    if (link.repository !== payload.repository) {
      return fail(`the repository is now linked to ${link.repository}, not ${payload.repository}`);
    }
    let token: string;
    try {
      token = await options.decryptCredential(link);
    } catch {
      return fail('the credential could not be decrypted (was SESSION_SECRET changed?)');
    }
    const key = createHash('sha256').update(`${link.apiUrl}\n${token}`).digest('hex');
    const paused = pausedUntil.get(key) ?? 0;
    if (paused > clock.now().getTime()) {
      return ended({
        action: 'retry',
        at: new Date(paused),
        reason: `${host.name} rate limit: waiting until ${new Date(paused).toISOString()}`,
        rateLimited: true,
      });
    }
    const comment =
      'sha' in payload
        ? null
        : {
            ...payload,
            body: withMissedLines(
              withFilesLost(
                payload.body,
                await runFileChanges(store, delivery.orgId, payload.execution_id),
              ),
              await runMissedLines(store, delivery.orgId, payload.execution_id),
              payload.run_url ?? null,
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
    if (result.ok) return ended({ action: 'sent', result: SENT_RESULTS[result.detail] });
    const decision = decideAfterAttempt({
      answer: result.answer,
      attempts: delivery.attempts,
      now: clock.now(),
      policy,
      random,
      host,
    });
    if (decision.action === 'retry' && decision.rateLimited) {
      pausedUntil.set(key, decision.at.getTime());
    }
    return ended(decision, result.answer.status);
  };

  /** Writes how the delivery's turn ended, and logs it unless it was sent. */
  const record = async (delivery: DeliveryRecord, outcome: Outcome): Promise<void> => {
    const { decision, endedAt: at, status } = outcome;
    if (decision.action === 'sent') {
      await store.markDeliverySent(delivery.id, owner, at, decision.result);
      return;
    }
    if (decision.action === 'fail') {
      await store.failDelivery(delivery.id, owner, { at, error: decision.reason, status });
      logger.warn(`[outbox] ${describe(delivery)} failed: ${decision.reason}`);
      return;
    }
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
        options.logger.error(`[outbox] store failed: ${messageOf(error)}`);
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

/** How one delivery's turn ended: what to write, when, and the code host's status. */
interface Outcome {
  decision: { action: 'sent'; result: DeliverySentResult } | AttemptDecision;
  endedAt: Date;
  status: number | null;
}

/** What a sender's success did, as the outbox keeps it. */
const SENT_RESULTS: Readonly<
  Record<Extract<SendResult, { ok: true }>['detail'], DeliverySentResult>
> = {
  'status set': 'status_set',
  'comment created': 'comment_created',
  'comment updated': 'comment_updated',
  'comment newer': 'comment_newer',
};

function messageOf(error: unknown): string {
  return (error as Error)?.message ?? String(error);
}

function describe(delivery: DeliveryRecord): string {
  return `delivery ${delivery.id} (${delivery.kind} of ${delivery.repo}, run ${delivery.executionId})`;
}
