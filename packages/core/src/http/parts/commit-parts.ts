import type { CarriedPart } from '../../executions/carryforward.js';
import {
  type MergedReport,
  mergeCommitReport,
  type PartFileLines,
} from '../../executions/commit-report.js';
import { executionToJson } from '../../executions/execution-json.js';
import { encodeFileList, fileListText } from '../../executions/file-list.js';
import {
  DEFAULT_PARTS_DEADLINE_MINUTES,
  type ExpectedParts,
  type ExpectedSource,
  expectedFromBase,
  type PartsRules,
  type PartsState,
  partsToCarry,
  settleParts,
} from '../../executions/parts.js';
import { decodeRunLines, encodeRunLines, runLinesText } from '../../executions/run-lines.js';
import { judgeRun } from '../../gate/judge-run.js';
import { runTargets } from '../../gate/run-targets.js';
import { truncateToHundredths } from '../../numbers/truncate-decimal.js';
import {
  type BaselineSelection,
  type CommitReportWrite,
  type ExecutionRecord,
  type IdempotencyKeyClaim,
  type NewDelivery,
  type PartUpload,
  type PatchTargetSource,
  type ProjectTargetSource,
  type RepositorySettings,
  StoreConflictError,
} from '../../storage/store.js';
import { wholeSeconds } from '../../time/timestamp.js';
import { ApiError } from '../api-error.js';
import { runWithFeedback } from '../feedback/run-deliveries.js';
import type { IngestInput } from '../inputs/ingest-body.js';
import { jsonReply, type Reply } from '../reply.js';
import type { ApiServices } from '../services.js';

// A run sent as one part of its commit's report (docs/decisions.md, "Parts of one commit and
// completeness"): stored beside the report, which is merged again and judged.

/** How often a part is merged again when another part of its commit was saved meanwhile. */
const MERGE_ATTEMPTS = 5;

/** Public messages of parts. */
export const PART_ERRORS = {
  noLines: (path: string) =>
    `invalid parameter: files (a part needs line data for every file: ${path})`,
  noFiles: 'invalid parameter: files (a part needs its files with line data)',
  otherBranch: (branch: string) => `part of a commit reported on another branch: ${branch}`,
  busy: 'service unavailable',
  pruned:
    'the parts of this commit were pruned by the retention setting: its report cannot be merged again',
} as const;

/** The line data of every file a part sent, or `400`: a part merges exactly or not at all. */
function partLines(input: IngestInput): PartFileLines[] {
  if (input.files === null || input.files.length === 0)
    throw new ApiError(400, PART_ERRORS.noFiles);
  const byPath = new Map((input.lines ?? []).map((file) => [file.path, file]));
  const lines: PartFileLines[] = [];
  for (const file of input.files) {
    const found = byPath.get(file.path);
    if (found === undefined) throw new ApiError(400, PART_ERRORS.noLines(file.path));
    lines.push({ path: found.path, lines: found.lines, patch: found.patch });
  }
  return lines;
}

/** What a report is judged with: the newest part's settings, the commit's merged lines. */
interface Judging {
  input: IngestInput;
  merged: MergedReport;
  baseline: ExecutionRecord | null;
  selection: BaselineSelection | null;
  target: { value: number; source: PatchTargetSource } | null;
  /** The project target, raised to the organisation's minimum; null without one. */
  project: { value: number; source: ProjectTargetSource } | null;
}

/** The merged report's verdict and figures (its outcome is settled by its parts). */
function judge({ input, merged, baseline, target, project }: Judging) {
  return judgeRun(
    merged,
    { ...input, projectTarget: project?.value ?? null },
    baseline?.coverage ?? null,
    target === null ? null : target.value,
  );
}

/**
 * The report's baseline, as a run's (with a `base_commit`, the base branch's run at it, else
 * its latest `pass`/`warn` run), except that a report still pending at the base commit is no
 * baseline: its figure is not yet the commit's.
 */
async function reportBaseline(
  services: ApiServices,
  orgId: string,
  input: IngestInput,
): Promise<{ baseline: ExecutionRecord | null; selection: BaselineSelection | null }> {
  const { store } = services;
  const { repo, baseBranch, baseCommit, component } = input;
  if (baseCommit !== null) {
    const at = await store.findBaselineAtCommit(orgId, repo, baseBranch, baseCommit, component);
    if (at && at.outcome !== 'pending') return { baseline: at, selection: 'base_commit' };
  }
  const latest = await store.findBaseline(orgId, repo, baseBranch, component);
  return { baseline: latest, selection: latest ? 'latest' : null };
}

/** The parts a report expects, and from where: the run, the repository, the base branch. */
function expectedParts(
  input: IngestInput,
  existing: PartsState | null,
  settings: RepositorySettings | null,
  baseline: ExecutionRecord | null,
): { expected: ExpectedParts | null; source: ExpectedSource | null } {
  if (input.expectParts !== null) return { expected: input.expectParts, source: 'run' };
  if (existing?.expectedSource === 'run') {
    return { expected: existing.expected, source: 'run' };
  }
  if (settings?.expectedParts != null) {
    return { expected: settings.expectedParts, source: 'repository' };
  }
  const fromBase = expectedFromBase(baseline?.parts ?? null);
  return fromBase === null
    ? { expected: null, source: null }
    : { expected: fromBase, source: 'base_branch' };
}

/**
 * A report with its feedback decisions and the deliveries it gives its linked repository
 * (statuses, the comment), linking its run page when the dashboard's URL is absolute; none
 * without a link.
 */
async function withFeedback(
  services: ApiServices,
  record: ExecutionRecord,
): Promise<{ record: ExecutionRecord; deliveries: NewDelivery[] }> {
  const link = await services.store.findRepositoryLink(record.orgId, record.repo);
  return runWithFeedback(services, record, link);
}

/**
 * The rules a part sent, kept with the report to judge it again when a part is carried; its
 * project target as judged (raised to the organisation's minimum).
 */
function rulesOf(input: IngestInput, project: { value: number } | null): PartsRules {
  return {
    warnThreshold: input.warnThreshold,
    failThreshold: input.failThreshold,
    projectTarget: project?.value ?? null,
    projectInformational: input.projectInformational,
    patchInformational: input.patchInformational,
  };
}

/** Carried parts in name (code-unit) order. */
const byPart = (carried: CarriedPart[]): CarriedPart[] =>
  carried.sort((a, b) => (a.part < b.part ? -1 : a.part > b.part ? 1 : 0));

/** The line data of a report's stored uploads, the received apart from the carried. */
async function uploadsLines(
  uploads: readonly PartUpload[],
  carriedNames: ReadonlySet<string>,
): Promise<{ received: PartFileLines[][]; carried: PartFileLines[][] }> {
  const decoded = await Promise.all(uploads.map((up) => decodeRunLines(up.lines)));
  return {
    received: decoded.filter((_, at) => !carriedNames.has(uploads[at]!.name)),
    carried: decoded.filter((_, at) => carriedNames.has(uploads[at]!.name)),
  };
}

/** A part found to carry: what the report names, what it stores and what it merges. */
interface FoundCarry {
  carried: CarriedPart;
  upload: PartUpload;
  lines: PartFileLines[];
}

/** Where a report looks for the parts it carries: its key and its base. */
interface CarryTarget {
  orgId: string;
  /** The report's run: never a source of its own parts. */
  id: string;
  repo: string;
  component: string | null;
  baseBranch: string | null;
  baseCommit: string | null;
}

/**
 * The uploads of the parts `names` taken from the merge base's commit report (the run's
 * `base_commit`) when it has them, else from the base branch's latest complete report (its
 * latest `pass`/`warn` run, the baseline); a name neither has is not carried. A part the source
 * itself carried keeps its first commit and run, so a chain of carries names where its lines
 * were measured. The changed lines are left out: they are the source's patch, not this
 * commit's.
 */
async function carryMissing(
  services: ApiServices,
  target: CarryTarget,
  names: readonly string[],
  now: Date,
): Promise<FoundCarry[]> {
  if (names.length === 0) return [];
  const { store } = services;
  const { orgId, repo, component } = target;
  const sources: ExecutionRecord[] = [];
  if (target.baseCommit !== null) {
    const atBase = await store.findCommitReport({
      orgId,
      repo,
      commit: target.baseCommit,
      component,
    });
    if (atBase !== null) sources.push(atBase);
  }
  if (target.baseBranch !== null) {
    const latest = await store.findBaseline(orgId, repo, target.baseBranch, component);
    if (latest !== null) sources.push(latest);
  }
  const found: FoundCarry[] = [];
  let wanted = [...names];
  for (const source of sources) {
    if (wanted.length === 0) break;
    if (source.id === target.id || source.parts === null || source.commit === null) continue;
    const uploads = await store.listPartUploads(orgId, source.id);
    for (const name of wanted) {
      const upload = uploads.find((up) => up.name === name);
      if (upload === undefined) continue;
      const first = source.parts.carried.find((part) => part.part === name);
      const lines = (await decodeRunLines(upload.lines)).map((file) => ({ ...file, patch: null }));
      found.push({
        carried: {
          part: name,
          fromCommit: first?.fromCommit ?? source.commit,
          fromRun: first?.fromRun ?? source.id,
          receivedAt: upload.receivedAt,
          ageSeconds: Math.max(0, Math.floor((now.getTime() - upload.receivedAt.getTime()) / 1000)),
        },
        upload: {
          executionId: target.id,
          orgId,
          name,
          receivedAt: upload.receivedAt,
          coverage: upload.coverage,
          lines: await encodeRunLines(runLinesText(lines)),
        },
        lines,
      });
    }
    wanted = wanted.filter((name) => !found.some((carry) => carry.carried.part === name));
  }
  return found;
}

/** The record of a report from what it was judged with and its settled parts. */
function reportRecord(
  base: Pick<ExecutionRecord, 'id' | 'orgId' | 'createdAt' | 'branch'>,
  judging: Judging,
  parts: PartsState,
  now: Date,
): ExecutionRecord {
  const { input, merged, baseline, selection, target, project } = judging;
  const { gate, verdict } = judge(judging);
  const settled = settleParts({ ...parts, verdict: verdict.outcome }, now);
  return {
    id: base.id,
    orgId: base.orgId,
    repo: input.repo,
    branch: base.branch,
    outcome: settled.outcome,
    delta: gate.delta,
    coverage: gate.coverage,
    commit: input.commit,
    createdAt: base.createdAt,
    baseBranch: input.baseBranch,
    baselineId: baseline?.id ?? null,
    baselineCoverage: gate.baseline,
    baselineCommit: baseline?.commit ?? null,
    baselineCreatedAt: baseline?.createdAt ?? null,
    baselineSelection: selection,
    component: input.component,
    pullRequest: input.pullRequest,
    baseCommit: input.baseCommit,
    patchCovered: merged.patch?.covered ?? null,
    patchCoverable: merged.patch?.coverable ?? null,
    patchTarget: merged.patch === null ? null : (target?.value ?? null),
    patchTargetSource: merged.patch === null ? null : (target?.source ?? null),
    decidedBy: verdict.decidedBy,
    fileCount: merged.files.length,
    projectTarget: project?.value ?? null,
    projectTargetSource: project?.source ?? null,
    policyDigest: input.policyDigest,
    policyCommit: input.policyCommit,
    policyEdited: input.policyEdited,
    commentSections: input.commentSections,
    // Branch counts of parts cannot be united (no part says which branches it took), so a
    // commit's report shows none rather than a sum.
    branchesCovered: null,
    branchesTotal: null,
    // The ingest refuses branch targets on a part, so no part carries a branch rule.
    branchTarget: null,
    patchBranchesCovered: null,
    patchBranchesTotal: null,
    patchBranchTarget: null,
    parts: settled.parts,
    // Parts may come from several jobs: the merged report names no single poster.
    postedBy: null,
    skipReason: null,
    // Decided with the deliveries, once the report is judged.
    feedback: null,
  };
}

/**
 * Records `input` (a run with `part`) as a part of its commit's report and answers the report:
 * the part's upload replaces one of the same name, the report is merged from every upload and
 * judged, and its statuses are enqueued. A save that lost a race with another part of the
 * commit is merged again.
 */
export async function recordPart(
  services: ApiServices,
  orgId: string,
  input: IngestInput & { part: string; commit: string },
  key: { claim: IdempotencyKeyClaim; replay: (record: ExecutionRecord) => Promise<Reply> } | null,
): Promise<Reply> {
  const { store, clock, ids } = services;
  const now = wholeSeconds(clock.now());
  const lines = partLines(input);
  const [encoded, settings, minimums, found] = await Promise.all([
    encodeRunLines(runLinesText(lines)),
    store.findRepositorySettings(orgId, input.repo),
    store.findOrganisationSettings(orgId),
    reportBaseline(services, orgId, input),
  ]);
  const upload = {
    orgId,
    name: input.part,
    receivedAt: now,
    coverage: truncateToHundredths(input.coverage) / 100,
    lines: encoded,
  };
  const reportKey = { orgId, repo: input.repo, commit: input.commit, component: input.component };
  for (let attempt = 1; attempt <= MERGE_ATTEMPTS; attempt += 1) {
    const existing = await store.findCommitReport(reportKey);
    if (existing !== null && existing.branch !== input.branch) {
      throw new ApiError(409, PART_ERRORS.otherBranch(existing.branch));
    }
    const previous = existing?.parts ?? null;
    // A part that arrives for real replaces the one carried under its name.
    const stillCarried = (previous?.carried ?? []).filter((part) => part.part !== input.part);
    const others =
      existing === null
        ? []
        : (await store.listPartUploads(orgId, existing.id)).filter((up) => up.name !== input.part);
    // Retention deleted the uploads of an old, complete report: merging this part alone
    // would replace the commit's figure with the part's.
    const kept = new Set(others.map((up) => up.name));
    const stored = [...(previous?.received ?? []), ...(previous?.carried ?? []).map((c) => c.part)];
    if (stored.some((name) => name !== input.part && !kept.has(name))) {
      throw new ApiError(409, PART_ERRORS.pruned);
    }
    const { expected, source } = expectedParts(input, previous, settings, found.baseline);
    const minutes = settings?.partsDeadlineMinutes ?? DEFAULT_PARTS_DEADLINE_MINUTES;
    const carriedNames = new Set(stillCarried.map((part) => part.part));
    const parts: PartsState = {
      received: [
        ...new Set([
          ...others.filter((up) => !carriedNames.has(up.name)).map((up) => up.name),
          input.part,
        ]),
      ].sort(),
      carried: stillCarried,
      carryforward: input.carryforward,
      rules: rulesOf(input, runTargets(input, false, settings, minimums).project),
      expected,
      expectedSource: source,
      closed: previous?.closed ?? false,
      deadline: previous?.deadline ?? new Date(now.getTime() + minutes * 60_000),
      revision: (previous?.revision ?? 0) + 1,
      reason: null,
      verdict: 'pass',
    };
    const id = existing?.id ?? ids.executionId();
    const carry = await carryMissing(
      services,
      { ...input, orgId, id },
      partsToCarry(parts, now, settings?.carryforwardParts ?? null),
      now,
    );
    parts.carried = byPart([...parts.carried, ...carry.map((found) => found.carried)]);
    const uploadLines = await uploadsLines(others, carriedNames);
    const merged = mergeCommitReport(
      [...uploadLines.received, lines],
      [...uploadLines.carried, ...carry.map((found) => found.lines)],
    );
    const base = existing ?? { id, orgId, createdAt: now, branch: input.branch };
    const targets = runTargets(input, merged.patch !== null, settings, minimums);
    const judging: Judging = {
      input,
      merged,
      ...found,
      target: targets.patch,
      project: targets.project,
    };
    const { record, deliveries } = await withFeedback(
      services,
      reportRecord(base, judging, parts, now),
    );
    const write: CommitReportWrite = {
      uploads: [{ ...upload, executionId: record.id }, ...carry.map((found) => found.upload)],
      files: await encodeFileList(fileListText(merged.files)),
      lines: await encodeRunLines(runLinesText(merged.lines)),
      deliveries,
      claim: key?.claim ?? null,
    };
    try {
      if (existing === null) {
        await store.insertCommitReport(record, write);
      } else if (!(await store.updateCommitReport(record, previous?.revision ?? 0, write))) {
        continue;
      }
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
      // A twin request with the same key was saved first: its answer is this one's too.
      if (key !== null) {
        const twin = await store.findIdempotentExecution(orgId, key.claim.key, now);
        if (twin !== null) return key.replay(twin.record);
      }
      // Another first part of the commit created the report: merge into it.
      continue;
    }
    if (write.deliveries.length > 0) services.outbox?.nudge();
    return jsonReply(201, executionToJson(record));
  }
  throw new ApiError(503, PART_ERRORS.busy);
}

/**
 * `record` (a commit's report) merged again with the parts `carry` found, judged by the
 * newest part's `rules` against its stored baseline and patch target.
 */
async function withCarried(
  services: ApiServices,
  record: ExecutionRecord,
  parts: PartsState,
  rules: PartsRules,
  carry: readonly FoundCarry[],
): Promise<{ record: ExecutionRecord; merged: MergedReport }> {
  const uploads = await services.store.listPartUploads(record.orgId, record.id);
  const stored = await uploadsLines(uploads, new Set(parts.carried.map((part) => part.part)));
  const merged = mergeCommitReport(stored.received, [
    ...stored.carried,
    ...carry.map((found) => found.lines),
  ]);
  const { gate, verdict } = judgeRun(
    merged,
    rules,
    record.baselineId === null ? null : record.baselineCoverage,
    merged.patch === null ? null : record.patchTarget,
  );
  return {
    record: {
      ...record,
      delta: gate.delta,
      coverage: gate.coverage,
      patchCovered: merged.patch?.covered ?? null,
      patchCoverable: merged.patch?.coverable ?? null,
      decidedBy: verdict.decidedBy,
      fileCount: merged.files.length,
      parts: {
        ...parts,
        carried: byPart([...parts.carried, ...carry.map((found) => found.carried)]),
        verdict: verdict.outcome,
      },
    },
    merged,
  };
}

/**
 * Judges `record` (a commit's report) again with its parts changed by `change` and saves it
 * with its deliveries; answers the record as saved, or the stored one when another write came
 * first and already settled it. A report judged without expected parts that carryforward
 * covers is merged again with them first. Used by `finish`, the deadline's sweep and reads
 * past the deadline.
 */
export async function resettleReport(
  services: ApiServices,
  record: ExecutionRecord,
  change: (parts: PartsState) => PartsState,
): Promise<ExecutionRecord> {
  const { store, clock } = services;
  const now = wholeSeconds(clock.now());
  let current: ExecutionRecord | null = record;
  for (let attempt = 1; attempt <= MERGE_ATTEMPTS && current?.parts; attempt += 1) {
    const previous = current.parts;
    const changed = change({ ...previous, revision: previous.revision + 1 });
    const settings = await store.findRepositorySettings(current.orgId, current.repo);
    // A report stored before the rules were kept cannot be judged again: nothing is carried.
    const carry =
      changed.rules === null
        ? []
        : await carryMissing(
            services,
            current,
            partsToCarry(changed, now, settings?.carryforwardParts ?? null),
            now,
          );
    const remerged =
      carry.length === 0 || changed.rules === null
        ? null
        : await withCarried(services, current, changed, changed.rules, carry);
    const base = remerged?.record ?? current;
    const settled = settleParts(remerged?.record.parts ?? changed, now);
    if (
      remerged === null &&
      settled.outcome === current.outcome &&
      settled.parts.closed === previous.closed
    ) {
      return current;
    }
    const { record: next, deliveries } = await withFeedback(services, {
      ...base,
      outcome: settled.outcome,
      parts: settled.parts,
    });
    const write: CommitReportWrite = {
      uploads: carry.map((found) => found.upload),
      files: remerged === null ? null : await encodeFileList(fileListText(remerged.merged.files)),
      lines: remerged === null ? null : await encodeRunLines(runLinesText(remerged.merged.lines)),
      deliveries,
      claim: null,
    };
    if (await store.updateCommitReport(next, previous.revision, write)) {
      if (write.deliveries.length > 0) services.outbox?.nudge();
      return next;
    }
    current = await store.findExecution(record.orgId, record.id);
  }
  if (current === null) throw new ApiError(404, 'not found');
  return current;
}

/** `record` as it reads at `now`: a pending report past its deadline is judged first. */
export async function settleOnRead(
  services: ApiServices,
  record: ExecutionRecord,
): Promise<ExecutionRecord> {
  if (record.outcome !== 'pending' || record.parts === null) return record;
  if (services.clock.now().getTime() < record.parts.deadline.getTime()) return record;
  return resettleReport(services, record, (parts) => parts);
}

/** Most overdue reports one sweep judges. */
export const OVERDUE_SWEEP_BATCH = 100;

/**
 * Judges the reports still pending past their deadline (`fail`, `incomplete: ...`), at most
 * {@link OVERDUE_SWEEP_BATCH}; answers how many it judged. The reference server runs it every
 * minute.
 */
export async function judgeOverdueReports(services: ApiServices): Promise<number> {
  const now = wholeSeconds(services.clock.now());
  const overdue = await services.store.listOverdueReports(now, OVERDUE_SWEEP_BATCH);
  let judged = 0;
  for (const record of overdue) {
    const settled = await resettleReport(services, record, (parts) => parts);
    if (settled.outcome !== 'pending') judged += 1;
  }
  return judged;
}
