import { randomUUID } from 'node:crypto';
import { describeLeftovers, endLeftovers } from './leftover-processes.js';
import { hasProcessTable, RUN_MARKER } from './process-table.js';

/**
 * Vitest global setup: marks the run, so that every process its tests start inherits the mark
 * (the workers start after this and copy the environment), and returns the check that ends the
 * run: a process the run started that still runs fails it, named, and is killed.
 */
export default function markTestRun(): () => Promise<void> {
  const run = { marker: randomUUID(), runnerPid: process.pid };
  process.env[RUN_MARKER] = run.marker;
  return async () => {
    if (!hasProcessTable()) {
      console.warn('[covgate] left-over process check SKIPPED: no /proc on this system');
      return;
    }
    const left = await endLeftovers(run);
    if (left.length === 0) return;
    console.error(describeLeftovers(left));
    // Vitest logs an error thrown here but still exits 0.
    process.exitCode = 1;
  };
}
