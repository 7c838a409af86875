import { DETAIL_PRUNED, NO_FILE_LINES } from '../../executions/file-lines-json.js';
import { findFileLines } from '../../executions/run-lines.js';
import type { SourceResult } from '../../source-files/source-reader.js';
import type { CodeHostKind } from '../../storage/store.js';
import { ApiError, ERRORS } from '../api-error.js';
import { requireExecuteScope } from '../auth/access.js';
import { authenticate } from '../auth/authenticate.js';
import { jsonReply } from '../reply.js';
import type { RouteHandler } from '../services.js';

/** A run's file's source as `GET /v1/executions/{id}/files/{path}/source` answers it. */
export interface FileSourceJson {
  execution_id: string;
  path: string;
  /** The commit the source is read at: the run's. */
  commit: string | null;
  /** The code host the repository is linked to, or null. */
  host: CodeHostKind | null;
  /** The file's text at the commit, or null when it could not be read (see `unavailable`). */
  text: string | null;
  /** Why there is no text (a code and a short sentence), or null when there is. */
  unavailable: { reason: string; message: string; retry_after_seconds?: number } | null;
}

/**
 * `GET /v1/executions/{id}/files/{path}/source`: the text of a file the run sent lines for, at
 * the run's commit, read from the repository's linked code host with the link's credential
 * (never shown). Checks in order: credentials and scope as `GET /v1/executions/{id}`; the run
 * (`404 not found`, another organisation's too); the file's lines in the run (`404`, so the
 * credential reads only files the run reported; `410` when retention pruned them); then `200` with the text, or with `text: null`
 * and why (no link, no commit, too large, missing, a rate limit, a refusal).
 */
export const getExecutionFileSource: RouteHandler = async (scope) => {
  const identity = await authenticate(scope);
  requireExecuteScope(identity);
  const id = scope.params.id as string;
  const path = scope.params.path as string;
  const { store, sourceFiles } = scope.services;
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
  const link = await store.findRepositoryLink(identity.orgId, record.repo);
  const result = await sourceFiles.read({
    orgId: identity.orgId,
    repo: record.repo,
    link,
    commit: record.commit,
    path,
  });
  return jsonReply(200, fileSourceJson(record.id, path, record.commit, link?.host ?? null, result));
};

function fileSourceJson(
  executionId: string,
  path: string,
  commit: string | null,
  host: CodeHostKind | null,
  result: SourceResult,
): FileSourceJson {
  const base = { execution_id: executionId, path, commit, host };
  if ('text' in result) return { ...base, text: result.text, unavailable: null };
  return {
    ...base,
    text: null,
    unavailable: {
      reason: result.reason,
      message: result.message,
      ...(result.retryAfterSeconds === undefined
        ? {}
        : { retry_after_seconds: result.retryAfterSeconds }),
    },
  };
}
