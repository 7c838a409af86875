import type { Execution, ExecutionDetail } from '@covgate/client';

/** A file of the run's patch with its patch lines (`patch_files` of `GET /v1/executions/{id}`). */
export interface PatchFile {
  path: string;
  patch_covered: number;
  patch_coverable: number;
  /** Percent, two decimals; null for no coverable patch line. */
  patch_percent: number | null;
}

/** A file whose coverage differs from the baseline run's; the missing side of an added or removed file is null. */
export interface FileChange {
  path: string;
  covered: number | null;
  coverable: number | null;
  percent: number | null;
  baseline_covered: number | null;
  baseline_coverable: number | null;
  baseline_percent: number | null;
  /** Percentage points, two decimals; null for an added or removed file. */
  change: number | null;
}

/** The files whose coverage changed against the baseline run, most lost first. */
export interface Changes {
  baseline_id: string;
  /** Every changed file; `files` holds at most the first 1000. */
  total: number;
  truncated: boolean;
  files: FileChange[];
}

/** A folder of the run's files with the sums of the files under it (`''` is the root). */
export interface TreeFolder {
  path: string;
  covered: number;
  coverable: number;
  percent: number | null;
  /** How many files lie under it, at any depth. */
  files: number;
}

/** `GET /v1/executions/{id}`: the record, its files, patch files, changes and folders. */
export type RunDetail = ExecutionDetail & {
  patch_files?: PatchFile[] | null;
  changes?: Changes | null;
  tree?: TreeFolder[];
};

/** `GET /v1/repos/headline`: what a repository's page leads with. */
export interface RepoHeadline {
  repo: string;
  component: string | null;
  base_branch: string | null;
  current: Execution | null;
  change_30d: { from: Execution; change: number } | null;
  last_failure: Execution | null;
  components: string[];
  web_url: string | null;
}
