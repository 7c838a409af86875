// The outbox of deliveries to code hosts.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/** What a delivery sends: the `covgate/project` or `covgate/patch` status, or the comment. */
export type DeliveryKind = 'status_project' | 'status_patch' | 'comment';

/** Where a delivery stands: waiting (or being sent), done, or given up. */
export type DeliveryState = 'pending' | 'sent' | 'failed';

/**
 * What a sent delivery did on the code host: set its status, created the comment, updated it,
 * or left it alone because it shows a newer run of the pull request.
 */
export type DeliverySentResult =
  | 'status_set'
  | 'comment_created'
  | 'comment_updated'
  | 'comment_newer';

/** A delivery to enqueue with its run: the run's organisation, repository and time are its own. */
export interface NewDelivery {
  /** `dlv_` + lowercase ULID. */
  id: string;
  kind: DeliveryKind;
  /** JSON text: everything needed to send it, never a credential. */
  payload: string;
}

/**
 * One message of the outbox: written in the transaction of its run, sent by the outbox worker
 * (one sender at a time per delivery, through a lease), retried until sent or failed.
 */
export interface DeliveryRecord {
  /** `dlv_` + lowercase ULID. */
  id: string;
  orgId: string;
  repo: string;
  /** The run it reports. */
  executionId: string;
  kind: DeliveryKind;
  /** JSON text as enqueued. */
  payload: string;
  state: DeliveryState;
  /**
   * How many times it was claimed for sending (a claim counts even when the sender died),
   * less the claims given back by {@link OutboxStore.deferDelivery} (rate limits, hand-backs).
   */
  attempts: number;
  /** Not claimed before this instant. */
  nextAttemptAt: Date;
  /** The sender holding it; null when not claimed or done. */
  leaseOwner: string | null;
  /** When the holder's claim lapses and another sender may take it. */
  leaseUntil: Date | null;
  /** Why the last attempt did not succeed (no credential in it), null when none failed. */
  lastError: string | null;
  /** The HTTP status of the last attempt's answer, null for none (network error). */
  lastStatus: number | null;
  createdAt: Date;
  updatedAt: Date;
  /** When it was sent; null until then. */
  sentAt: Date | null;
  /** What sending it did; null until sent (and for deliveries sent before covgate kept it). */
  sentResult: DeliverySentResult | null;
}

/** How an attempt to send a delivery ended, when not with success. */
export interface DeliveryAttemptOutcome {
  /** When the attempt ended. */
  at: Date;
  /** Why: a short reason for operators and the dashboard, never a credential. */
  error: string;
  /** The HTTP status of the answer, null for a network error or none. */
  status: number | null;
}

/** The outbox's gauges: what operators scrape. */
export interface OutboxStats {
  /** Deliveries not sent yet (claimed ones included). */
  pending: number;
  /** Seconds since the oldest pending delivery was enqueued; 0 when none is pending. */
  oldestPendingAgeSeconds: number;
  /** Deliveries given up. */
  failed: number;
}

/**
 * The outbox of deliveries to the code host. Deliveries are enqueued by
 * {@link ExecutionStore.insertExecution} with their run; senders claim them with a lease and
 * report how each attempt ended. A report counts only while the reporting sender holds the
 * delivery (`owner` is its lease owner and it is `pending`); otherwise it changes nothing and
 * answers false.
 */
export interface OutboxStore {
  /**
   * Claims, atomically across processes, up to `limit` pending deliveries due at `now` (their
   * `nextAttemptAt` at or before it) whose lease is absent or lapsed: sets their lease to
   * `owner` until `now + leaseMs`, counts an attempt, and returns them as now stored, oldest
   * due first. Of concurrent claimers, each delivery goes to one.
   */
  claimDeliveries(
    owner: string,
    now: Date,
    leaseMs: number,
    limit: number,
  ): Promise<DeliveryRecord[]>;
  /** Marks the delivery `sent` at `at`, having done `result`, and drops its lease. */
  markDeliverySent(
    id: string,
    owner: string,
    at: Date,
    result: DeliverySentResult,
  ): Promise<boolean>;
  /**
   * Puts the delivery back as `pending`, due at `nextAttemptAt`, without a lease, keeping the
   * outcome as `lastError` and `lastStatus`.
   */
  retryDelivery(
    id: string,
    owner: string,
    outcome: DeliveryAttemptOutcome & { nextAttemptAt: Date },
  ): Promise<boolean>;
  /**
   * Puts the delivery back like {@link OutboxStore.retryDelivery} and gives back the attempt
   * its claim counted: for a claim that made no attempt the code host could refuse (a rate
   * limit's wait, a batch handed back unsent), so `attempts` counts real attempts only.
   */
  deferDelivery(
    id: string,
    owner: string,
    outcome: DeliveryAttemptOutcome & { nextAttemptAt: Date },
  ): Promise<boolean>;
  /**
   * Hands back every delivery `owner` holds (pending with its lease): drops the lease, gives
   * back the attempt its claim counted (never below 0) and sets `updatedAt` to `at`, so they
   * are due again at once. For a sender that lost track of its claims in a store failure;
   * answers how many it handed back.
   */
  releaseDeliveries(owner: string, at: Date): Promise<number>;
  /** Gives the delivery up: `failed`, without a lease, with the outcome kept. */
  failDelivery(id: string, owner: string, outcome: DeliveryAttemptOutcome): Promise<boolean>;
  /** The outbox's gauges at `now`. */
  outboxStats(now: Date): Promise<OutboxStats>;
  /**
   * The repository's latest failed deliveries, newest first (`updatedAt` desc, `id` desc); with
   * `since`, only those given up at or after it (a repository link's, since it was made).
   */
  listDeliveryFailures(
    orgId: string,
    repo: string,
    limit: number,
    since?: Date,
  ): Promise<DeliveryRecord[]>;
  /** The deliveries of one run, oldest first (`id`): for tests, support and the run page. */
  listRunDeliveries(orgId: string, executionId: string): Promise<DeliveryRecord[]>;
}
