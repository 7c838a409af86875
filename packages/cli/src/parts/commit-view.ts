import type { CovgateClient, Execution } from '@covgate/client';
import type { Gathered } from '../gather-reports.js';
import { percentOf } from '../reports/percent.js';

/** A part's own counts, kept beside the commit's merged ones in `--json` (`part`). */
export interface PartCounts {
  name: string;
  covered_lines: number;
  coverable_lines: number;
  files: number;
}

/**
 * What the verdict of a part's commit is printed from: the merged report the service holds
 * (its per-file list, read back), with the job's own counts kept as {@link PartCounts}.
 */
export interface CommitView {
  read: Gathered;
  part: PartCounts;
}

/**
 * For a run whose commit report is merged from parts, the commit's counts and files as the
 * service merged them, so that the lines and files printed beside the merged coverage are the
 * commit's and not this job's. The merged commit has no branch figure (parts do not merge
 * branches). Null for a run that is not a part's, or when the service kept no per-file list
 * for the commit (its detail was pruned): the job's own counts are printed then.
 */
export async function commitViewOf(
  client: Pick<CovgateClient, 'getExecution'>,
  record: Execution,
  read: Gathered,
  part: string,
): Promise<CommitView | null> {
  if (record.parts === undefined) return null;
  const detail = await client.getExecution({ id: record.id });
  if (detail.files === null) return null;
  const files = detail.files
    .filter((entry) => !entry.path.endsWith('/'))
    .map((entry) => ({ path: entry.path, covered: entry.covered, coverable: entry.coverable }));
  let covered = 0;
  let coverable = 0;
  for (const entry of detail.files) {
    covered += entry.covered;
    coverable += entry.coverable;
  }
  return {
    read: {
      ...read,
      files,
      summary: {
        covered,
        coverable,
        percent: percentOf(covered, coverable),
        files: detail.files.length,
      },
      branches: undefined,
    },
    part: {
      name: part,
      covered_lines: read.summary.covered,
      coverable_lines: read.summary.coverable,
      files: read.summary.files,
    },
  };
}
