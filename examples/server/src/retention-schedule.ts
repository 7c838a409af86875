import {
  type PruneReport,
  pruneRunDetail,
  type RetentionPolicy,
  retentionEnabled,
  type Store,
} from '@covgate/core';
import type { Logger } from 'pino';
import type { ServerConfig } from './config.js';
import type { RetentionLock } from './retention-lock.js';

/** How often the server prunes by default when a retention policy is set: hourly. */
export const RETENTION_INTERVAL_MINUTES = 60;

/** A running schedule; `stop` aborts a pass in flight between batches and waits for it. */
export interface RetentionSchedule {
  stop(): Promise<void>;
}

/** What the schedule needs. */
export interface RetentionScheduleOptions {
  policy: RetentionPolicy;
  intervalMs: number;
  /** Set when the deployment has Redis: one process prunes at a time. */
  lock?: RetentionLock;
  logger: Pick<Logger, 'info' | 'error'>;
  now?: () => Date;
}

/** The log line of a pass, as `covgate-admin prune` prints it too. */
export function pruneReportLine(report: PruneReport): string {
  const verb = report.dryRun ? 'would prune' : 'pruned';
  return `${verb} the detail of ${report.runs} runs: ${report.rows} rows, ${report.bytes} bytes, in ${report.repositories} repositories`;
}

/**
 * Prunes runs' detail by `policy` every `intervalMs` (docs/configuration.md, "Retention of
 * runs' detail"). With a lock, a process whose turn finds another one pruning skips it; without
 * one every process prunes, which is safe (a second pass finds nothing) but repeats the reads.
 * A failed pass is logged and tried again at the next turn.
 */
export function startRetentionSchedule(
  store: Store,
  options: RetentionScheduleOptions,
): RetentionSchedule {
  const { policy, lock, logger } = options;
  const now = options.now ?? (() => new Date());
  const stopping = new AbortController();
  let running: Promise<void> | null = null;

  const prune = (signal: AbortSignal) => pruneRunDetail(store, { policy, now: now(), signal });
  const pass = async () => {
    const report = lock
      ? await lock.runAlone((lost) => prune(AbortSignal.any([lost, stopping.signal])))
      : await prune(stopping.signal);
    if (report === null) logger.info('[retention] another process is pruning: pass skipped');
    else if (report.runs > 0) logger.info(`[retention] ${pruneReportLine(report)}`);
  };
  const turn = () => {
    if (running !== null) return;
    running = pass()
      .catch((error: unknown) => {
        logger.error(
          `[retention] pass failed: ${error instanceof Error ? error.message : 'error'}`,
        );
      })
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(turn, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await running;
      await lock?.dispose();
    },
  };
}

/** The server's retention policy: `RETENTION_DAYS` and `RETENTION_RUNS_PER_BRANCH`. */
export function retentionPolicyOf(config: ServerConfig): RetentionPolicy {
  return {
    days: config.retentionDays ?? null,
    runsPerBranch: config.retentionRunsPerBranch ?? null,
  };
}

/**
 * The server's schedule: none when no retention setting is given or the interval is 0; with
 * `REDIS_URL`, one process of the deployment prunes at a time.
 */
export async function startRetentionFor(
  config: ServerConfig,
  store: Store,
  logger: Logger,
): Promise<RetentionSchedule | undefined> {
  const policy = retentionPolicyOf(config);
  const minutes = config.retentionIntervalMinutes ?? RETENTION_INTERVAL_MINUTES;
  if (!retentionEnabled(policy) || minutes === 0) return undefined;
  // Imported only when configured, as the rate limiter's Redis is.
  const lock = config.redisUrl
    ? (await import('./redis-retention-lock.js')).redisRetentionLock(config.redisUrl, logger)
    : undefined;
  return startRetentionSchedule(store, {
    policy,
    intervalMs: minutes * 60_000,
    logger,
    ...(lock ? { lock } : {}),
  });
}
