import { decodeFileList, type FileEntry } from '../../executions/file-list.js';
import { infra } from '../../infrastructure/infra.js';
import { ApiError, ERRORS } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import { jsonReply } from '../reply.js';
import type { RouteHandler } from '../services.js';
import { type ExecutionJson, executionToJson } from './execution-json.js';
import { requireExecuteScope } from './executions.js';

/** One run with what it carries beyond the list's record: its per-file list. */
export interface ExecutionDetailJson extends ExecutionJson {
  /** The run's per-file list sorted by path, or null when it sent none. */
  files: FileEntry[] | null;
}

/**
 * `GET /v1/executions/{id}`: one run of the caller's organisation with its per-file list.
 * Same credentials as `GET /v1/executions`; an id of another organisation answers like an
 * unknown one (`404 not found`), so ids cannot be probed across organisations.
 */
export const getExecution: RouteHandler = async (scope) => {
  const identity = await authenticate(scope);
  requireExecuteScope(identity);
  const id = scope.params.id as string;
  const { store, logger } = scope.services;
  const [record, stored] = await infra(logger, 'executions', () =>
    Promise.all([
      store.findExecution(identity.orgId, id),
      store.findExecutionFiles(identity.orgId, id),
    ]),
  );
  if (!record) throw new ApiError(404, ERRORS.notFound);
  const files = stored === null ? null : await decodeFileList(stored);
  const detail: ExecutionDetailJson = { ...executionToJson(record), files };
  return jsonReply(200, detail);
};
