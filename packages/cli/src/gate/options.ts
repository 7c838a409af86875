import type { ReportSpec } from '../gather-reports.js';
import type { PathMap } from '../paths/path-map.js';
import type { ReportFormat } from '../reports/types.js';

/** The options of `covgate run` and `covgate report`. */
export interface GateOptions {
  report: ReportSpec[];
  pathMap: PathMap[];
  dryRun: boolean;
  verbose: boolean;
  /** Exit 2 when a report names files the checkout does not have. */
  strictPaths?: boolean;
  format: ReportFormat | 'auto';
  repo?: string;
  branch?: string;
  commit?: string;
  baseBranch?: string;
  warnThreshold?: number;
  failThreshold?: number;
  /** The patch coverage below which the run fails (the service's patch rule; default its own). */
  patchTarget?: number;
  /** The floor on the run's branch percent (the project branch rule); none by default. */
  branchTarget?: number;
  /** The target on the changed lines' branch percent (the patch branch rule); none by default. */
  patchBranchTarget?: number;
  /** Post a change whose patch cannot be measured without it (a warning) instead of exit 2. */
  allowMissingPatch?: boolean;
  /** The monorepo component the run covers; baselines and badges are per component. */
  component?: string;
  /** The part of its commit's report the run is (a shard, a matrix job); default from CI. */
  part?: string;
  /** The parts the commit's report waits for: a count or names. */
  expectParts?: number | string[];
  /** Seconds to wait for the merged verdict of a part's commit (0: do not wait). */
  wait?: number;
  url?: string;
  org?: string;
  json: boolean;
  failOnWarn: boolean;
  /** Exit 1 when the server compared the run with no baseline. */
  requireBaseline?: boolean;
  passEnv: string[];
  /** Seconds each attempt at the service may take (default: `COVGATE_TIMEOUT`, else 30). */
  timeout?: number;
  /** Exit 0 with a warning when the service is unavailable. */
  allowUnreachable?: boolean;
  /** Post with the CI job's OIDC ID token even when `COVGATE_TOKEN` is set. */
  oidc?: boolean;
  /** The `aud` to ask the ID token for (default: the service URL's origin). */
  oidcAudience?: string;
  /** The variable holding the job's ID token (default `COVGATE_ID_TOKEN`). */
  idTokenVar?: string;
  /** Also write the merged, repository-relative coverage as Cobertura XML to this path. */
  coberturaOut?: string;
  /** `covgate run --bundle FILE`: write the run's bundle there instead of posting it. */
  bundleOut?: string;
}
