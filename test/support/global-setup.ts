import { randomUUID } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeLeftovers, endLeftovers } from './leftover-processes.js';
import { hasProcessTable, RUN_MARKER } from './process-table.js';

/**
 * Vitest global setup: marks the run, so that every process its tests start inherits the mark,
 * and gives it a temporary folder of its own (TMPDIR: the tests' folders are made in it); the
 * workers start after this and copy the environment. Returns the check that ends the run: a
 * process the run started that still runs fails it, named, and is killed; then the folder
 * goes.
 */
export default function markTestRun(): () => Promise<void> {
  // The real path: a process's working folder reads resolved in /proc.
  const tmpDir = realpathSync(mkdtempSync(join(tmpdir(), 'covgate-test-run-')));
  const run = { marker: randomUUID(), runnerPid: process.pid, tmpDir };
  process.env[RUN_MARKER] = run.marker;
  process.env.TMPDIR = tmpDir;
  return async () => {
    if (!hasProcessTable()) {
      console.warn('[covgate] left-over process check SKIPPED: no /proc on this system');
    } else {
      const left = await endLeftovers(run);
      if (left.length > 0) {
        console.error(describeLeftovers(left));
        // Vitest logs an error thrown here but still exits 0.
        process.exitCode = 1;
      }
    }
    rmSync(tmpDir, { recursive: true, force: true });
  };
}
