import { decodeExecutionCursor, encodeExecutionCursor } from '../../executions/execution-cursor.js';
import { executionToJson } from '../../executions/execution-json.js';
import { encodeFileList, fileListDigest, fileListText } from '../../executions/file-list.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_SWEEP,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyExpiry,
  ingestDigest,
  isValidIdempotencyKey,
  takeSweepTurn,
} from '../../executions/idempotency.js';
import { encodeRunLines, runLinesText } from '../../executions/run-lines.js';
import { judgeRun } from '../../gate/judge-run.js';
import { runTargets } from '../../gate/run-targets.js';
import { truncateToHundredths } from '../../numbers/truncate-decimal.js';
import type {
  BaselineSelection,
  ExecutionRecord,
  IdempotentExecution,
  RepositoryLink,
} from '../../storage/store.js';
import { wholeSeconds } from '../../time/timestamp.js';
import { ApiError } from '../api-error.js';
import {
  authenticateRepositoryRead,
  requireExecuteScope,
  requireOrgAccess,
} from '../auth/access.js';
import { admitCiPoster, authenticateIngest } from '../auth/ci-token-login.js';
import { requireSessionRole } from '../auth/roles.js';
import { runWithFeedback } from '../feedback/run-deliveries.js';
import { MAX_INFLATED_INGEST_BYTES } from '../ingest-body-limit.js';
import { parseExecutionFilter } from '../inputs/execution-filter.js';
import { type IngestInput, parseIngestBody } from '../inputs/ingest-body.js';
import { parseLimitParameter } from '../inputs/query-parameters.js';
import { recordPart } from '../parts/commit-parts.js';
import { jsonReply, jsonTextReply, type Reply } from '../reply.js';
import { readJsonBody } from '../request-body.js';
import type { RequestScope, RouteHandler } from '../services.js';

/** Default and maximum of `limit` on `GET /v1/executions`. */
export const EXECUTIONS_LIMIT = { default: 10, max: 100 } as const;

/**
 * `GET /v1/executions?org&repo&limit[&cursor][&branch][&outcome][&component]`, with an
 * `execute` API token or a session (Bearer or cookie) of the organisation. Check order: 401
 * credential, 403 token without `execute`, 400 missing `org`/`repo`, 400 bad
 * `limit`/`cursor`, 400 bad `branch`/`outcome`/`component`, 403 organisation mismatch. The
 * filters narrow both the page and `total`.
 */
export const listExecutions: RouteHandler = async (scope) => {
  const { identity, org, repo } = await authenticateRepositoryRead(scope);
  const query = scope.query;
  const limit = parseLimitParameter(query.get('limit'), EXECUTIONS_LIMIT);
  const rawCursor = query.get('cursor');
  const after = rawCursor ? decodeExecutionCursor(rawCursor) : null;
  if (rawCursor && !after) throw new ApiError(400, 'invalid parameter: cursor');
  const filter = parseExecutionFilter(query);
  requireOrgAccess(identity, org);

  const { store } = scope.services;
  const [records, total] = await Promise.all([
    store.listExecutions({
      orgId: identity.orgId,
      repo,
      limit: rawCursor === null ? limit : limit + 1,
      ...(after ? { after } : {}),
      ...filter,
    }),
    store.countExecutions(identity.orgId, repo, filter),
  ]);
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
 * `POST /v1/executions` (docs/decisions.md, Executions): records a run and evaluates the gate
 * server-side against its baseline (see {@link findRunBaseline}) and, when the run sends a
 * patch, the patch rule (see {@link runTargets}: the organisation's minimums raise its targets); stores with it the baseline it used
 * (or that there was none) and the rule that decided, which the answer shows. The body may be
 * gzip-compressed (`Content-Encoding: gzip`), for a long `files` list. With an
 * `Idempotency-Key` the record and the key are stored in one transaction; a repeat within
 * 24 h answers the first record again, or `409` when its request differs. A CI job may
 * present its OIDC ID token instead of a credential (see {@link authenticateIngest}): the
 * run must then name its `org`, whose settings of the repository must trust the job's
 * identity (`403` otherwise), and the record keeps that identity as `posted_by`.
 */
export const createExecution: RouteHandler = async (scope: RequestScope) => {
  const poster = await authenticateIngest(scope);
  if (poster.kind === 'identity') {
    requireExecuteScope(poster.identity);
    // Members read; recording a run through a session needs admin or owner.
    requireSessionRole(poster.identity, 'admin');
  }
  const key = readIdempotencyKey(scope.request.headers);
  const input = parseIngestBody(
    await readJsonBody(scope.request, {
      maxBytes: scope.services.settings.ingestBodyBytes,
      maxInflatedBytes: MAX_INFLATED_INGEST_BYTES,
      inflationBudget: scope.services.inflationBudget,
    }),
  );
  const identity =
    poster.kind === 'ci'
      ? await admitCiPoster(scope, poster.ci, input)
      : { orgId: poster.identity.orgId, postedBy: null };
  if (poster.kind === 'identity' && input.org !== undefined) {
    requireOrgAccess(poster.identity, input.org);
  }
  const { store, clock, ids } = scope.services;
  const now = wholeSeconds(clock.now());
  const filesText = input.files === null ? null : fileListText(input.files);
  const linesText = input.lines === null ? null : runLinesText(input.lines);
  const requestDigest =
    key === null
      ? ''
      : ingestDigest({
          ...input,
          orgId: identity.orgId,
          filesDigest: filesText === null ? null : fileListDigest(filesText, linesText),
        });
  if (key !== null) {
    const existing = await store.findIdempotentExecution(identity.orgId, key, now);
    if (existing) return replay(existing, requestDigest);
  }
  if (input.part !== null && input.commit !== null) {
    const claim = { key, requestDigest, createdAt: now, expiresAt: idempotencyKeyExpiry(now) };
    return recordPart(
      scope.services,
      identity.orgId,
      { ...input, part: input.part, commit: input.commit },
      key === null
        ? null
        : {
            claim: { ...claim, key },
            replay: async (record) => replay({ requestDigest, record }, requestDigest),
          },
    );
  }
  // The settings are read only when the run needs them: for its patch target, or to tell
  // whether its `repo_url` is to be kept (one write, only while none is set).
  // The organisation's minimums are read for every run: they may raise any run's targets.
  const [found, settings, minimums, link] = await Promise.all([
    findRunBaseline(scope, identity.orgId, input),
    input.patch === null && input.repoUrl === null
      ? null
      : store.findRepositorySettings(identity.orgId, input.repo),
    store.findOrganisationSettings(identity.orgId),
    findFeedbackLink(scope, identity.orgId, input),
  ]);
  const targets = runTargets(input, input.patch !== null, settings, minimums);
  const target = targets.patch;
  const { baseline, selection } = found;
  const { gate, verdict } = judgeRun(
    input,
    { ...input, projectTarget: targets.project?.value ?? null },
    baseline?.coverage ?? null,
    target === null ? null : target.value,
  );
  const [files, lines] = await Promise.all([
    filesText === null ? null : encodeFileList(filesText),
    linesText === null ? null : encodeRunLines(linesText),
  ]);
  const built: ExecutionRecord = {
    id: ids.executionId(),
    orgId: identity.orgId,
    repo: input.repo,
    branch: input.branch,
    outcome: verdict.outcome,
    delta: gate.delta,
    coverage: gate.coverage,
    commit: input.commit,
    createdAt: now,
    baseBranch: input.baseBranch,
    baselineId: baseline?.id ?? null,
    baselineCoverage: gate.baseline,
    baselineCommit: baseline?.commit ?? null,
    baselineCreatedAt: baseline?.createdAt ?? null,
    baselineSelection: selection,
    component: input.component,
    pullRequest: input.pullRequest,
    baseCommit: input.baseCommit,
    patchCovered: input.patch?.covered ?? null,
    patchCoverable: input.patch?.coverable ?? null,
    patchTarget: target?.value ?? null,
    patchTargetSource: target?.source ?? null,
    decidedBy: verdict.decidedBy,
    fileCount: input.files?.length ?? null,
    projectTarget: targets.project?.value ?? null,
    projectTargetSource: targets.project?.source ?? null,
    policyDigest: input.policyDigest,
    policyCommit: input.policyCommit,
    policyEdited: input.policyEdited,
    commentSections: input.commentSections,
    branchesCovered: input.branches?.covered ?? null,
    branchesTotal: input.branches?.total ?? null,
    branchTarget: percentOrNull(input.branchTarget),
    patchBranchesCovered: input.patchBranches?.covered ?? null,
    patchBranchesTotal: input.patchBranches?.total ?? null,
    patchBranchTarget: percentOrNull(input.patchBranchTarget),
    parts: null,
    postedBy: identity.postedBy,
    skipReason: null,
    feedback: null,
  };
  const { record, deliveries } = runWithFeedback(scope.services, built, link);
  const keepRepoUrl = async () => {
    if (input.repoUrl === null || settings?.webUrlSource != null) return;
    // The run is stored: a failed write of the URL (logged by the store) must not fail it.
    const url = input.repoUrl;
    await store.claimRepositoryWebUrl(identity.orgId, input.repo, url, now).catch(() => {});
  };
  if (key === null) {
    await store.insertExecution(record, files, deliveries, lines);
    if (deliveries.length > 0) scope.services.outbox?.nudge();
    await keepRepoUrl();
    return jsonReply(201, executionToJson(record));
  }
  const claim = { key, requestDigest, createdAt: now, expiresAt: idempotencyKeyExpiry(now) };
  const result = await store.insertKeyedExecution(record, claim, files, deliveries, lines);
  // A concurrent request with the same key won the race: its answer is this one's too.
  if (!result.inserted) return replay(result, requestDigest);
  if (deliveries.length > 0) scope.services.outbox?.nudge();
  await keepRepoUrl();
  if (takeSweepTurn(store, now)) {
    // The ingest is stored: a failed sweep (logged by the store) must not fail it.
    await store.deleteExpiredIdempotencyKeys(now, IDEMPOTENCY_SWEEP.batchSize).catch(() => {});
  }
  return jsonReply(201, executionToJson(record));
};

/**
 * The run's baseline: with a `base_commit`, the base branch's latest run of the component at
 * exactly that commit, whatever its outcome (it is what the change started from); else, or
 * when there is none, the latest `pass`/`warn` run of the component on the base branch.
 */
async function findRunBaseline(
  scope: RequestScope,
  orgId: string,
  input: IngestInput,
): Promise<{ baseline: ExecutionRecord | null; selection: BaselineSelection | null }> {
  const { store } = scope.services;
  const { repo, baseBranch, baseCommit, component } = input;
  if (baseCommit !== null) {
    const atCommit = await store.findBaselineAtCommit(
      orgId,
      repo,
      baseBranch,
      baseCommit,
      component,
    );
    if (atCommit) return { baseline: atCommit, selection: 'base_commit' };
  }
  const latest = await store.findBaseline(orgId, repo, baseBranch, component);
  return { baseline: latest, selection: latest ? 'latest' : null };
}

/** A target as stored: truncated to hundredths, so an answer and its replay show the same. */
function percentOrNull(target: number | null): number | null {
  return target === null ? null : truncateToHundredths(target) / 100;
}

/**
 * The repository's link to its code host, which the run's feedback decisions name even when
 * the run can give it none: one primary-key read, made alongside the baseline's.
 */
async function findFeedbackLink(
  scope: RequestScope,
  orgId: string,
  input: IngestInput,
): Promise<RepositoryLink | null> {
  const { store } = scope.services;
  return store.findRepositoryLink(orgId, input.repo);
}
