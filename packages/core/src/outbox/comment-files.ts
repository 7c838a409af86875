import { type FileChangesJson, fileChanges } from '../executions/file-changes.js';
import { decodeFileList } from '../executions/file-list.js';
import type { Store } from '../storage/store.js';

/**
 * The files of a run that changed against its baseline run, read from both runs' stored lists
 * when its comment is sent; null when the run is gone, has no baseline, or either run sent no
 * per-file list.
 */
export async function runFileChanges(
  store: Store,
  orgId: string,
  executionId: string,
): Promise<FileChangesJson | null> {
  const record = await store.findExecution(orgId, executionId);
  const baselineId = record?.baselineId ?? null;
  if (baselineId === null) return null;
  const [stored, baselineStored] = await Promise.all([
    store.findExecutionFiles(orgId, executionId),
    store.findExecutionFiles(orgId, baselineId),
  ]);
  if (stored === null || baselineStored === null) return null;
  const [files, baselineFiles] = await Promise.all([
    decodeFileList(stored),
    decodeFileList(baselineStored),
  ]);
  return fileChanges(baselineId, files, baselineFiles);
}
