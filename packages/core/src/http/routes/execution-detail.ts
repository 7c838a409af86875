import { type ExecutionJson, executionToJson } from '../../executions/execution-json.js';
import { feedbackToJson } from '../../executions/feedback-json.js';
import { type FileChangesJson, fileChanges } from '../../executions/file-changes.js';
import { decodeFileList, type FileEntry } from '../../executions/file-list.js';
import { type FolderJson, folderTree } from '../../executions/folder-tree.js';
import { type PatchFileJson, patchFiles } from '../../executions/patch-files.js';
import { formatTimestamp } from '../../time/timestamp.js';
import { ApiError, ERRORS } from '../api-error.js';
import { requireExecuteScope } from '../auth/access.js';
import { authenticate } from '../auth/authenticate.js';
import { settleOnRead } from '../parts/commit-parts.js';
import { jsonReply } from '../reply.js';
import type { RouteHandler } from '../services.js';

/** One entry of a run's per-file list as the API shows it. */
export interface FileEntryJson {
  path: string;
  covered: number;
  coverable: number;
  /** The entry's patch counts, when the run sent them for it. */
  patch_covered?: number;
  patch_coverable?: number;
  /** The entry's branch counts, when the run sent them for it. */
  branches?: { covered: number; total: number };
}

/** One run with what it carries beyond the list's record. */
export interface ExecutionDetailJson extends ExecutionJson {
  /** The run's per-file list sorted by path, or null when it sent none. */
  files: FileEntryJson[] | null;
  /** The entries with coverable patch lines, most missed first; null without per-file patch counts. */
  patch_files: PatchFileJson[] | null;
  /** The files whose coverage changed against the baseline run; null without both lists. */
  changes: FileChangesJson | null;
  /** Every folder of the list with its sums, sorted by path; empty without a list. */
  tree: FolderJson[];
  /** True when `tree` holds only the shallowest 10 000 folders. */
  tree_truncated: boolean;
  /** When retention deleted the run's per-file list and line data; absent when it never did. */
  detail_pruned_at?: string;
}

/**
 * `GET /v1/executions/{id}`: one run of the caller's organisation with its per-file list, its
 * patch's files, the files that changed against its baseline run and its folder tree.
 * Same credentials as `GET /v1/executions`; an id of another organisation answers like an
 * unknown one (`404 not found`), so ids cannot be probed across organisations.
 */
export const getExecution: RouteHandler = async (scope) => {
  const identity = await authenticate(scope);
  requireExecuteScope(identity);
  const id = scope.params.id as string;
  const { store } = scope.services;
  const [found, stored, deliveries] = await Promise.all([
    store.findExecution(identity.orgId, id),
    store.findExecutionFiles(identity.orgId, id),
    store.listRunDeliveries(identity.orgId, id),
  ]);
  if (!found) throw new ApiError(404, ERRORS.notFound);
  // A commit's report past its deadline is judged before it is shown.
  const record = await settleOnRead(scope.services, found);
  const files = stored === null ? null : await decodeFileList(stored);
  const prunedAt = stored === null ? await store.findDetailPrunedAt(identity.orgId, id) : null;
  const baselineId = record.baselineId;
  const baselineStored =
    files === null || baselineId === null
      ? null
      : await store.findExecutionFiles(identity.orgId, baselineId);
  const baselineFiles = baselineStored === null ? null : await decodeFileList(baselineStored);
  const tree = files === null ? { folders: [], truncated: false } : folderTree(files);
  // A report judged on this read enqueued its deliveries after the list was read.
  const feedback = feedbackToJson(
    record,
    record === found ? deliveries : await store.listRunDeliveries(identity.orgId, id),
  );
  const detail: ExecutionDetailJson = {
    ...executionToJson(record),
    ...(feedback === null ? {} : { feedback }),
    files: files === null ? null : files.map(fileEntryToJson),
    patch_files: files === null ? null : patchFiles(files),
    changes:
      files === null || baselineFiles === null || baselineId === null
        ? null
        : fileChanges(baselineId, files, baselineFiles),
    tree: tree.folders,
    tree_truncated: tree.truncated,
  };
  if (prunedAt !== null) detail.detail_pruned_at = formatTimestamp(prunedAt);
  return jsonReply(200, detail);
};

function fileEntryToJson(file: FileEntry): FileEntryJson {
  const { path, covered, coverable, patchCovered, patchCoverable } = file;
  const json: FileEntryJson = { path, covered, coverable };
  if (patchCoverable !== undefined) {
    json.patch_covered = patchCovered as number;
    json.patch_coverable = patchCoverable;
  }
  if (file.branchesTotal !== undefined) {
    json.branches = { covered: file.branchesCovered as number, total: file.branchesTotal };
  }
  return json;
}
