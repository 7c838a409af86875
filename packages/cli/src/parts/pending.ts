import type { CovgateClient, Execution } from '@covgate/client';
import type { Io } from '../io.js';

/** A run with a verdict: its outcome is not `pending` (nor `skipped`, never a posted run's). */
export type JudgedExecution = Execution & {
  outcome: Exclude<Execution['outcome'], 'pending' | 'skipped'>;
  coverage: number;
};

/**
 * The run with its verdict, or null while its commit's report is `pending`. A posted run is
 * never `skipped` (only `covgate skip` records that), so such an answer is not a verdict either.
 */
export function judgedOrNull(record: Execution): JudgedExecution | null {
  if (record.outcome === 'pending' || record.outcome === 'skipped' || record.coverage === null) {
    return null;
  }
  return { ...record, outcome: record.outcome, coverage: record.coverage };
}

/** How often `--wait` asks for the commit's verdict. */
export const PENDING_POLL_MS = 5_000;

/** What a pending report lacks, as the service's statuses say it: `missing integration`. */
export function missingText(parts: NonNullable<Execution['parts']>): string {
  if (parts.expected === null) return 'waiting for `covgate finish`';
  if (parts.missing.length > 0) return `missing ${parts.missing.join(', ')}`;
  return `missing ${parts.missing_count} of ${parts.expected} parts`;
}

/**
 * The lines of a part whose commit's verdict is still pending: what the commit has and lacks,
 * and that covgate exits 0 (docs/cli.md, "Sharded and matrix CI").
 */
export function pendingLines(record: Execution, part: string): { out: string; err: string } {
  const parts = record.parts;
  const received = parts?.received.length ?? 1;
  const total =
    parts === undefined || parts.expected === null
      ? undefined
      : Array.isArray(parts.expected)
        ? new Set([...parts.expected, ...parts.received]).size
        : Math.max(parts.expected, received);
  const have = total === undefined ? `${received} received` : `${received} of ${total} parts`;
  const commit = record.commit === null ? '' : ` at ${record.commit.slice(0, 7)}`;
  return {
    out: `pending ${record.repo}@${record.branch}${commit}: part ${part} recorded; ${have}, ${parts ? missingText(parts) : ''}`,
    err: 'covgate: the verdict is pending until every part has arrived; exit 0 (--wait <seconds> waits for it)',
  };
}

/**
 * Asks for the commit's run every {@link PENDING_POLL_MS} until its outcome is no longer
 * `pending`, at most `seconds`; resolves with the run, or null when the time is up.
 */
export async function waitForVerdict(
  client: CovgateClient,
  id: string,
  seconds: number,
  io: Io,
): Promise<JudgedExecution | null> {
  const sleep = io.sleep ?? ((ms: number) => new Promise<void>((done) => setTimeout(done, ms)));
  let waited = 0;
  while (waited + PENDING_POLL_MS <= seconds * 1000) {
    await sleep(PENDING_POLL_MS);
    waited += PENDING_POLL_MS;
    const record = await client.getExecution({ id });
    const judged = judgedOrNull(record);
    if (judged !== null) return judged;
  }
  return null;
}
