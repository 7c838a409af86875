import type { Gathered } from '../gather-reports.js';
import type { PatchResult } from './measure-patch.js';
import { reportEntry, sourceFiles, unknownPaths } from './read-reports.js';

/** The request `covgate` would send. */
export interface PlannedRequest {
  method: 'POST';
  url: string;
  body: Record<string, unknown>;
}

/** The URL of `POST /v1/executions` under the service URL (which may carry a path). */
export function executionsUrl(serviceUrl: string): string {
  return `${serviceUrl.replace(/\/+$/, '')}/v1/executions`;
}

/**
 * What `--dry-run` prints on stdout: the request line and its JSON body; with `--json` one
 * object with the request, the figures, the reports, the files and the patch.
 */
export function dryRunOutput(
  request: PlannedRequest,
  read: Gathered,
  patch: PatchResult,
  json: boolean,
  policy: Record<string, unknown> = {},
): string {
  if (!json) return `${request.method} ${request.url}\n${JSON.stringify(request.body, null, 2)}\n`;
  return `${JSON.stringify({
    dry_run: true,
    request,
    coverage: read.summary.percent,
    covered_lines: read.summary.covered,
    coverable_lines: read.summary.coverable,
    files: read.summary.files,
    reports: read.reports.map(reportEntry),
    source_files: sourceFiles(read.files),
    unknown_paths: unknownPaths(read),
    patch: patch.patch,
    patch_skipped: patch.skipped,
    ...policy,
  })}\n`;
}
