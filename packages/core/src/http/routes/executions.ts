import { z } from 'zod';
import { checkOrgAccess, type Identity } from '../../auth/identity.js';
import { hasScope } from '../../auth/scopes.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_SWEEP,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyExpiry,
  ingestDigest,
  isValidIdempotencyKey,
  takeSweepTurn,
} from '../../executions/idempotency.js';
import { evaluateGate } from '../../gate/gate-evaluation.js';
import { infra } from '../../infrastructure/infra.js';
import type { ExecutionRecord, IdempotentExecution } from '../../storage/store.js';
import { wholeSeconds } from '../../time/timestamp.js';
import { ApiError, ERRORS } from '../api-error.js';
import { requireSessionRole } from '../auth/roles.js';
import { authenticate } from '../authenticate.js';
import { jsonReply, jsonTextReply, type Reply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RequestScope, RouteHandler } from '../services.js';
import { parseBody } from '../validation.js';
import { decodeExecutionCursor, encodeExecutionCursor } from './execution-cursor.js';
import { executionToJson } from './execution-json.js';

/** Default and maximum of `limit` on `GET /v1/executions`. */
export const EXECUTIONS_LIMIT = { default: 10, max: 100 } as const;

const LIMIT_SHAPE = /^[1-9][0-9]{0,2}$/;

/** Sessions act for their whole organisation; API tokens need the `execute` scope. */
export function requireExecuteScope(identity: Identity): void {
  if (identity.kind === 'token' && !hasScope(identity.scopes, 'execute')) {
    throw new ApiError(403, ERRORS.forbidden);
  }
}

/** A non-empty query parameter, else `400 missing required parameter: <name>`. */
export function requireQueryParameter(params: URLSearchParams, name: string): string {
  const value = params.get(name);
  if (value === null || value === '') {
    throw new ApiError(400, `missing required parameter: ${name}`);
  }
  return value;
}

function parseLimit(value: string | null): number {
  if (value === null) return EXECUTIONS_LIMIT.default;
  const limit = LIMIT_SHAPE.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= 1 && limit <= EXECUTIONS_LIMIT.max)) {
    throw new ApiError(400, 'invalid parameter: limit');
  }
  return limit;
}

/**
 * `GET /v1/executions?org&repo&limit[&cursor]`, with an `execute` API token or a session
 * (Bearer or cookie) of the organisation. Check order: 401 credential, 403 token without
 * `execute`, 400 missing `org`/`repo`, 400 bad `limit`/`cursor`, 403 organisation mismatch.
 */
export const listExecutions: RouteHandler = async (scope) => {
  const identity = await authenticate(scope);
  requireExecuteScope(identity);
  const query = scope.query;
  const org = requireQueryParameter(query, 'org');
  const repo = requireQueryParameter(query, 'repo');
  const limit = parseLimit(query.get('limit'));
  const rawCursor = query.get('cursor');
  const after = rawCursor ? decodeExecutionCursor(rawCursor) : null;
  if (rawCursor && !after) throw new ApiError(400, 'invalid parameter: cursor');
  if (checkOrgAccess(identity, org) === 'forbidden') throw new ApiError(403, ERRORS.forbidden);

  const { store, logger } = scope.services;
  const [records, total] = await infra(logger, 'executions', () =>
    Promise.all([
      store.listExecutions({
        orgId: identity.orgId,
        repo,
        limit: rawCursor === null ? limit : limit + 1,
        ...(after ? { after } : {}),
      }),
      store.countExecutions(identity.orgId, repo),
    ]),
  );
  const page = records.slice(0, limit);
  // The text `jsonReply` would make of `{ executions, total[, next_cursor] }`, joined from
  // the records' remembered JSON.
  let text = `{"executions":${scope.services.executionJson.arrayText(page)},"total":${JSON.stringify(total)}`;
  if (rawCursor !== null) text += `,"next_cursor":${JSON.stringify(nextCursor(records, page))}`;
  return jsonTextReply(200, `${text}}`);
};

function nextCursor(fetched: ExecutionRecord[], page: ExecutionRecord[]): string | null {
  const last = page[page.length - 1];
  return fetched.length > page.length && last
    ? encodeExecutionCursor({ createdAt: last.createdAt, id: last.id })
    : null;
}

const NAME = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\p{Cc}]+$/u);

/** A commit hash as git prints it, full (40 or 64) or abbreviated (at least 7); stored lowercase. */
const COMMIT = z
  .string()
  .regex(/^[0-9a-fA-F]{7,64}$/)
  .transform((commit) => commit.toLowerCase());

const ingestBody = z
  .object({
    org: z.string().min(1).optional(),
    repo: NAME,
    branch: NAME,
    coverage: z.number().min(0).max(100),
    base_branch: NAME.default('main'),
    commit: COMMIT.nullable().optional(),
    warn_threshold: z.number().positive().max(100).default(0.5),
    fail_threshold: z.number().positive().max(100).default(1.0),
  })
  .refine((body) => body.warn_threshold <= body.fail_threshold, { path: ['warn_threshold'] });

/** Public messages of the idempotent ingest. */
export const IDEMPOTENCY_ERRORS = {
  invalidKey: `invalid header: ${IDEMPOTENCY_KEY_HEADER}`,
  keyReused: 'idempotency key already used for another request',
} as const;

/** The `Idempotency-Key` header: null when absent, else a valid key or `400`. */
function readIdempotencyKey(headers: Headers): string | null {
  const key = headers.get(IDEMPOTENCY_KEY_HEADER);
  if (key === null) return null;
  if (!isValidIdempotencyKey(key)) throw new ApiError(400, IDEMPOTENCY_ERRORS.invalidKey);
  return key;
}

/** The first answer again (with `Idempotent-Replayed: true`), or `409` for another request. */
function replay(existing: IdempotentExecution, requestDigest: string): Reply {
  if (existing.requestDigest !== requestDigest) {
    throw new ApiError(409, IDEMPOTENCY_ERRORS.keyReused);
  }
  return jsonReply(201, executionToJson(existing.record), {
    [IDEMPOTENT_REPLAYED_HEADER.toLowerCase()]: 'true',
  });
}

/**
 * `POST /v1/executions` (decided; not in the spec): records a run and evaluates the gate
 * server-side against the latest `pass`/`warn` coverage of `base_branch`, and stores with it
 * the baseline it used (or that there was none), which the answer shows. With an
 * `Idempotency-Key` the record and the key are stored in one transaction; a repeat within
 * 24 h answers the first record again, or `409` when its request differs.
 */
export const createExecution: RouteHandler = async (scope: RequestScope) => {
  const identity = await authenticate(scope);
  requireExecuteScope(identity);
  // Members read; recording a run through a session needs admin or owner.
  requireSessionRole(identity, 'admin');
  const key = readIdempotencyKey(scope.request.headers);
  const input = parseBody(ingestBody, await readJsonBody(scope.request));
  if (input.org !== undefined && checkOrgAccess(identity, input.org) === 'forbidden') {
    throw new ApiError(403, ERRORS.forbidden);
  }
  const { store, logger, clock, ids } = scope.services;
  const now = wholeSeconds(clock.now());
  const requestDigest =
    key === null
      ? ''
      : ingestDigest({
          orgId: identity.orgId,
          repo: input.repo,
          branch: input.branch,
          coverage: input.coverage,
          baseBranch: input.base_branch,
          commit: input.commit ?? null,
          warnThreshold: input.warn_threshold,
          failThreshold: input.fail_threshold,
        });
  if (key !== null) {
    const existing = await infra(logger, 'executions', () =>
      store.findIdempotentExecution(identity.orgId, key, now),
    );
    if (existing) return replay(existing, requestDigest);
  }
  const baseline = await infra(logger, 'executions', () =>
    store.findBaseline(identity.orgId, input.repo, input.base_branch),
  );
  const gate = evaluateGate({
    coverage: input.coverage,
    baseline: baseline?.coverage ?? null,
    warnThreshold: input.warn_threshold,
    failThreshold: input.fail_threshold,
  });
  const record: ExecutionRecord = {
    id: ids.executionId(),
    orgId: identity.orgId,
    repo: input.repo,
    branch: input.branch,
    outcome: gate.outcome,
    delta: gate.delta,
    coverage: gate.coverage,
    commit: input.commit ?? null,
    createdAt: now,
    baseBranch: input.base_branch,
    baselineId: baseline?.id ?? null,
    baselineCoverage: gate.baseline,
    baselineCommit: baseline?.commit ?? null,
    baselineCreatedAt: baseline?.createdAt ?? null,
  };
  if (key === null) {
    await infra(logger, 'executions', () => store.insertExecution(record));
    return jsonReply(201, executionToJson(record));
  }
  const claim = { key, requestDigest, createdAt: now, expiresAt: idempotencyKeyExpiry(now) };
  const result = await infra(logger, 'executions', () => store.insertKeyedExecution(record, claim));
  // A concurrent request with the same key won the race: its answer is this one's too.
  if (!result.inserted) return replay(result, requestDigest);
  if (takeSweepTurn(store, now)) {
    // The ingest is stored: a failed sweep (logged by the store) must not fail it.
    await infra(logger, 'executions', () =>
      store.deleteExpiredIdempotencyKeys(now, IDEMPOTENCY_SWEEP.batchSize),
    ).catch(() => {});
  }
  return jsonReply(201, executionToJson(record));
};
