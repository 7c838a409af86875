import { type CovgateApi, judgeOverdueCommitReports } from '@covgate/core';
import type { Logger } from 'pino';

/** How often the server judges commits' reports past their parts deadline. */
export const PARTS_SWEEP_INTERVAL_MS = 60_000;

/** A running sweep; `stop` waits for a sweep in flight. */
export interface PartsSweep {
  stop(): Promise<void>;
}

/**
 * Judges the commits' reports of `api` still waiting for parts past their deadline, every
 * `intervalMs` (docs/decisions.md, "Parts of one commit and completeness"). Every process
 * sweeps: a report judged by another one is skipped (its store write is conditional on the
 * revision it read). A failed sweep is logged and tried again at the next turn.
 */
export function startPartsSweep(
  api: CovgateApi,
  logger: Pick<Logger, 'info' | 'error'>,
  intervalMs = PARTS_SWEEP_INTERVAL_MS,
): PartsSweep {
  let running: Promise<void> | null = null;
  const sweep = () => {
    if (running !== null) return;
    running = judgeOverdueCommitReports(api)
      .then((judged) => {
        if (judged > 0) logger.info(`[parts] judged ${judged} incomplete commit reports`);
      })
      .catch((error: unknown) => {
        logger.error(`[parts] sweep failed: ${error instanceof Error ? error.message : 'error'}`);
      })
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
