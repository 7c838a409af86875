import { DETAIL_PRUNED, fileLinesJson, NO_FILE_LINES } from '../../executions/file-lines-json.js';
import { findFileLines } from '../../executions/run-lines.js';
import { ApiError, ERRORS } from '../api-error.js';
import { requireExecuteScope } from '../auth/access.js';
import { authenticate } from '../auth/authenticate.js';
import { jsonReply } from '../reply.js';
import type { RouteHandler } from '../services.js';

/**
 * `GET /v1/executions/{id}/files/{path}`: one file's covered, missed and changed lines from
 * the line data the run was sent with (`path` percent-encoded, `/` as `%2F`). Same
 * credentials as `GET /v1/executions/{id}`; a run of another organisation answers like an
 * unknown one (`404 not found`), a file the run sent no lines for `404` saying so, a run whose
 * detail retention pruned `410` saying so.
 */
export const getExecutionFile: RouteHandler = async (scope) => {
  const identity = await authenticate(scope);
  requireExecuteScope(identity);
  const id = scope.params.id as string;
  const path = scope.params.path as string;
  const { store } = scope.services;
  const [record, stored] = await Promise.all([
    store.findExecution(identity.orgId, id),
    store.findExecutionLines(identity.orgId, id),
  ]);
  if (!record) throw new ApiError(404, ERRORS.notFound);
  if (stored === null && (await store.findDetailPrunedAt(identity.orgId, id)) !== null) {
    throw new ApiError(410, DETAIL_PRUNED);
  }
  const file = stored === null ? null : await findFileLines(stored, path);
  if (file === null) throw new ApiError(404, NO_FILE_LINES);
  return jsonReply(200, fileLinesJson(record.id, file));
};
