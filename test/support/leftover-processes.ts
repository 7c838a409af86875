import { setTimeout as sleep } from 'node:timers/promises';
import { listProcesses, type ProcessInfo } from './process-table.js';

/** What tells one test run's processes from the rest of the machine's. */
export interface TestRun {
  /** The value of `COVGATE_TEST_RUN` the run gave its workers, and they to their children. */
  marker: string;
  /** The vitest process. Its own children are its workers and tools, not the tests' processes. */
  runnerPid: number;
  /** The run's own temporary folder (its TMPDIR), if it has one. */
  tmpDir?: string;
}

/**
 * The processes in `table` that `run` started and that still run: those started with its
 * marker, those below one of its workers, and those working in or naming its temporary
 * folder (a test may have passed an environment without the marker, and an orphan has no
 * worker above it). Not the runner, its workers and tools, processes older than the runner
 * (the database and Redis CI started, the shell that started the run), nor exited ones.
 */
export function selectLeftovers(table: ProcessInfo[], run: TestRun): ProcessInfo[] {
  const parentOf = new Map(table.map((entry) => [entry.pid, entry.ppid]));
  const runner = table.find((entry) => entry.pid === run.runnerPid);
  const belowWorker = (entry: ProcessInfo): boolean => {
    let pid: number | undefined = entry.ppid;
    for (let depth = 0; pid !== undefined && pid > 1 && depth < 100; depth += 1) {
      const parent = parentOf.get(pid);
      if (parent === run.runnerPid) return true;
      pid = parent;
    }
    return false;
  };
  const inside = run.tmpDir === undefined ? undefined : `${run.tmpDir}/`;
  const inTmpDir = (entry: ProcessInfo): boolean =>
    inside !== undefined &&
    (`${entry.cwd}/`.startsWith(inside) || entry.args.some((arg) => arg.includes(inside)));
  return table.filter(
    (entry) =>
      entry.pid !== run.runnerPid &&
      entry.ppid !== run.runnerPid &&
      entry.state !== 'Z' &&
      (runner === undefined || entry.startTicks >= runner.startTicks) &&
      (entry.runMarker === run.marker || belowWorker(entry) || inTmpDir(entry)),
  );
}

/**
 * Finds the processes `run` left running, gives those still ending `graceMs` to go (a test
 * may have signalled one without waiting for it), then kills the rest with SIGKILL and
 * returns them.
 */
export async function endLeftovers(
  run: TestRun,
  options: { graceMs?: number; list?: () => ProcessInfo[] } = {},
): Promise<ProcessInfo[]> {
  const list = options.list ?? listProcesses;
  const deadline = performance.now() + (options.graceMs ?? 3_000);
  let left = selectLeftovers(list(), run);
  while (left.length > 0 && performance.now() < deadline) {
    await sleep(100);
    left = selectLeftovers(list(), run);
  }
  for (const entry of left) {
    try {
      process.kill(entry.pid, 'SIGKILL');
    } catch {
      // It ended between the look and the kill.
    }
  }
  return left;
}

/** The failure message naming each process left running: pid, parent and command line. */
export function describeLeftovers(left: ProcessInfo[]): string {
  const lines = [...left]
    .sort((a, b) => a.pid - b.pid)
    .map((entry) => `  pid ${entry.pid} (parent ${entry.ppid}): ${entry.args.join(' ')}`);
  const count = left.length === 1 ? '1 process' : `${left.length} processes`;
  return [
    `covgate: ${count} the test run started still ran after its last test (killed now):`,
    ...lines,
    'Every test must stop what it starts and wait for it to exit (test/support/processes.ts).',
  ].join('\n');
}
