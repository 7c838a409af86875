import { z } from 'zod';
import { parseCarryforward } from '../../executions/carryforward.js';
import { COMPONENT } from '../../executions/component.js';
import {
  byPath,
  type FileEntry,
  MAX_FILE_ENTRIES,
  MAX_FILE_PATH_LENGTH,
  repeatedPath,
} from '../../executions/file-list.js';
import type { IngestFields } from '../../executions/idempotency.js';
import { checkLineData } from '../../executions/line-data-check.js';
import { PART_NAME, parseExpectedParts } from '../../executions/parts.js';
import type { FileLines } from '../../executions/run-lines.js';
import { normaliseWebUrl } from '../../executions/web-url.js';
import type { CommentSection } from '../../storage/records/executions.js';
import { ApiError, ERRORS } from '../api-error.js';

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

/** A count of lines: an integer from 0 to a billion (MySQL `INT` holds it, no file has more). */
const LINES = z.number().int().min(0).max(1_000_000_000);

const PERCENT = z.number().min(0).max(100);

const TOO_MANY_FILES = `more than ${MAX_FILE_ENTRIES} entries`;

const NO_CONTROL = /^[^\p{Cc}]+$/u;
const MAX_LINES = 1_000_000_000;

/** A line count as `LINES` takes it. */
const isLines = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_LINES;

function invalid(field: string): ApiError {
  return new ApiError(400, `invalid parameter: ${field}`);
}

/** A run's `files` list and the line data its entries sent, both sorted by path. */
interface ParsedFiles {
  files: FileEntry[];
  /** Null when no entry sent `lines`. */
  lines: FileLines[] | null;
}

/**
 * The `files` list, validated by hand in one pass (the same rules and messages a zod schema
 * would give, at a tenth of its cost on 50 000 entries) and sorted by path: null when absent.
 */
function parseFiles(value: unknown): ParsedFiles | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw invalid('files');
  if (value.length > MAX_FILE_ENTRIES) throw invalid(`files (${TOO_MANY_FILES})`);
  const files: FileEntry[] = new Array(value.length);
  const lines: FileLines[] = [];
  let ordered = true;
  for (let index = 0; index < value.length; index += 1) {
    const entry: unknown = value[index];
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw invalid(`files[${index}]`);
    }
    const fields = entry as Record<string, unknown>;
    const { path, covered, coverable, patch_covered, patch_coverable } = fields;
    if (
      typeof path !== 'string' ||
      path.length === 0 ||
      path.length > MAX_FILE_PATH_LENGTH ||
      !NO_CONTROL.test(path)
    ) {
      throw invalid(`files[${index}].path`);
    }
    if (!isLines(covered)) throw invalid(`files[${index}].covered`);
    if (!isLines(coverable)) throw invalid(`files[${index}].coverable`);
    if (covered > coverable) throw invalid(`files[${index}].covered (more than coverable)`);
    const file: FileEntry =
      (patch_covered === undefined || patch_covered === null) &&
      (patch_coverable === undefined || patch_coverable === null)
        ? { path, covered, coverable }
        : {
            path,
            covered,
            coverable,
            ...patchCounts(index, patch_covered, patch_coverable, coverable),
          };
    if (fields.branches !== undefined && fields.branches !== null) {
      const branches = branchCounts(`files[${index}].branches`, fields.branches);
      file.branchesCovered = branches.covered;
      file.branchesTotal = branches.total;
    }
    files[index] = file;
    const fileLines = parseFileLines(index, file, fields.lines, fields.patch_lines);
    if (fileLines !== null) lines.push(fileLines);
    if (ordered && index > 0 && files[index - 1]!.path > path) ordered = false;
  }
  // A client that sends the list sorted (covgate's CLI does) saves the sort.
  if (!ordered) {
    files.sort(byPath);
    lines.sort(byPath);
  }
  const repeated = repeatedPath(files);
  if (repeated !== null) throw invalid(`files (repeated path: ${repeated})`);
  return { files, lines: lines.length === 0 ? null : lines };
}

/**
 * An entry's `lines` and `patch_lines` (docs/decisions.md, "Line data"), checked against its
 * counts by {@link checkLineData}: null when it sent neither. A refusal names the entry, its
 * path and the reason: `files[3].lines (src/a.ts: 4 coverable lines listed, but coverable
 * is 5)`.
 */
function parseFileLines(
  index: number,
  file: FileEntry,
  lines: unknown,
  patchLines: unknown,
): FileLines | null {
  const refuse = (field: string, problem: string) =>
    invalid(`files[${index}].${field} (${file.path}: ${problem})`);
  const hasPatch = patchLines !== undefined && patchLines !== null;
  if (lines === undefined || lines === null) {
    if (hasPatch) throw refuse('patch_lines', 'sent without lines');
    return null;
  }
  if (
    typeof lines !== 'object' ||
    !Array.isArray((lines as Record<string, unknown>).coverable) ||
    !Array.isArray((lines as Record<string, unknown>).covered)
  ) {
    throw refuse('lines', 'not an object of two arrays, coverable and covered');
  }
  if (hasPatch && !Array.isArray(patchLines)) throw refuse('patch_lines', 'not an array');
  if (file.path.endsWith('/')) throw refuse('lines', 'a rolled-up folder has no lines');
  const encoded = lines as { coverable: number[]; covered: number[] };
  const checked = checkLineData(encoded, file, hasPatch ? (patchLines as unknown[]) : null);
  if ('problem' in checked) throw refuse(checked.field, checked.problem);
  if (file.patchCoverable !== undefined && checked.patchCoverable !== null) {
    if (checked.patchCoverable !== file.patchCoverable)
      throw refuse(
        'patch_coverable',
        `${checked.patchCoverable} changed lines are coverable, but patch_coverable is ${file.patchCoverable}`,
      );
    if (checked.patchCovered !== file.patchCovered)
      throw refuse(
        'patch_covered',
        `${checked.patchCovered} changed lines are covered, but patch_covered is ${file.patchCovered}`,
      );
  }
  return {
    path: file.path,
    lines: { coverable: encoded.coverable, covered: encoded.covered },
    patch: hasPatch ? (patchLines as number[]) : null,
  };
}

/**
 * An entry's `patch_covered` and `patch_coverable`, both given (one without the other is
 * refused), `patch_covered` at most `patch_coverable`, `patch_coverable` at most `coverable`.
 */
function patchCounts(
  index: number,
  patchCovered: unknown,
  patchCoverable: unknown,
  coverable: number,
): { patchCovered: number; patchCoverable: number } {
  const field = (name: string) => `files[${index}].${name}`;
  if (patchCovered === undefined || patchCovered === null) {
    throw invalid(`${field('patch_covered')} (required with patch_coverable)`);
  }
  if (patchCoverable === undefined || patchCoverable === null) {
    throw invalid(`${field('patch_coverable')} (required with patch_covered)`);
  }
  if (!isLines(patchCovered)) throw invalid(field('patch_covered'));
  if (!isLines(patchCoverable)) throw invalid(field('patch_coverable'));
  if (patchCovered > patchCoverable) {
    throw invalid(`${field('patch_covered')} (more than patch_coverable)`);
  }
  if (patchCoverable > coverable)
    throw invalid(`${field('patch_coverable')} (more than coverable)`);
  return { patchCovered, patchCoverable };
}

/**
 * A `branches` object, `{covered, total}`: whole counts from 0 to a billion, `covered` at most
 * `total`. Checked by hand for the entries of `files` (see {@link parseFiles}).
 */
function branchCounts(field: string, value: unknown): { covered: number; total: number } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(field);
  const { covered, total } = value as Record<string, unknown>;
  if (!isLines(covered)) throw invalid(`${field}.covered`);
  if (!isLines(total)) throw invalid(`${field}.total`);
  if (covered > total) throw invalid(`${field}.covered (more than total)`);
  return { covered, total };
}

/**
 * The run's `branches` against its files': when any entry sent branch counts the run must
 * send its own, equal to their sum (entries without branch data count nothing), so the run's
 * figure and its files' never disagree.
 */
function checkBranchTotals(
  branches: { covered: number; total: number } | null,
  files: readonly FileEntry[] | null,
): void {
  let covered = 0;
  let total = 0;
  let sent = false;
  for (const file of files ?? []) {
    if (file.branchesTotal === undefined) continue;
    sent = true;
    covered += file.branchesCovered as number;
    total += file.branchesTotal;
  }
  if (!sent) return;
  if (branches === null) throw invalid('branches (required with files[].branches)');
  if (branches.covered !== covered || branches.total !== total) {
    throw invalid(
      `branches (${branches.covered} of ${branches.total}, but the files' branches sum to ${covered} of ${total})`,
    );
  }
}

const branchesBody = z
  .object({ covered: LINES, total: LINES })
  .refine((branches) => branches.covered <= branches.total, {
    path: ['covered'],
    message: 'more than total',
  });

const patchBody = z
  .object({ covered: LINES, coverable: LINES, branches: branchesBody.nullable().optional() })
  .refine((patch) => patch.covered <= patch.coverable, {
    path: ['covered'],
    message: 'more than coverable',
  });

/** The comment's sections, in the order the comment shows them. */
const COMMENT_SECTIONS = ['verdict', 'patch', 'files'] as const satisfies readonly CommentSection[];

/** covgate.yml's `comment:`: on, off, or the sections to show (each at most once). */
const commentBody = z.union([
  z.boolean(),
  z
    .object({ sections: z.array(z.enum(COMMENT_SECTIONS)).max(COMMENT_SECTIONS.length) })
    .strict()
    .refine((comment) => new Set(comment.sections).size === comment.sections.length, {
      path: ['sections'],
      message: 'a section repeats',
    }),
]);

/** The comment's sections from `comment`: null for all (the default), none for `false`. */
function commentSections(
  comment: z.infer<typeof commentBody> | null | undefined,
): CommentSection[] | null {
  if (comment === undefined || comment === null || comment === true) return null;
  if (comment === false) return [];
  return COMMENT_SECTIONS.filter((section) => comment.sections.includes(section));
}

/** A policy file's name: the change that edits it is told so. */
const POLICY_FILE = z.enum(['covgate.yml', '.covgate.yml']);

/** The policy file a run was judged by: its sha256 and the commit it was read at. */
const policyBody = z.object({
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  commit: COMMIT.nullable().optional(),
});

const ingestBody = z
  .object({
    org: z.string().min(1).optional(),
    repo: NAME,
    branch: NAME,
    coverage: PERCENT,
    base_branch: NAME.default('main'),
    commit: COMMIT.nullable().optional(),
    warn_threshold: z.number().positive().max(100).default(0.5),
    fail_threshold: z.number().positive().max(100).default(1.0),
    component: COMPONENT.nullable().optional(),
    pull_request: z.number().int().min(1).max(2_147_483_647).nullable().optional(),
    base_commit: COMMIT.nullable().optional(),
    patch: patchBody.nullable().optional(),
    patch_target: PERCENT.nullable().optional(),
    repo_url: z.string().nullable().optional(),
    policy: policyBody.nullable().optional(),
    policy_edited: POLICY_FILE.nullable().optional(),
    comment: commentBody.nullable().optional(),
    project_target: PERCENT.nullable().optional(),
    project_informational: z.boolean().nullable().optional(),
    patch_informational: z.boolean().nullable().optional(),
    branches: branchesBody.nullable().optional(),
    branch_target: PERCENT.nullable().optional(),
    patch_branch_target: PERCENT.nullable().optional(),
    part: z.string().regex(PART_NAME).nullable().optional(),
    expect_parts: z.unknown().optional(),
    carryforward: z.unknown().optional(),
    // Checked by `parseFiles`: zod spent 0.1-0.4 s on 50 000 entries.
    files: z.unknown().optional(),
  })
  .refine((body) => body.warn_threshold <= body.fail_threshold, { path: ['warn_threshold'] });

/**
 * The patch's branch counts and the two branch targets, failing closed: a target without the
 * counts it reads (`branch_target` without `branches`, `patch_branch_target` without
 * `patch.branches`) is refused, never judged as a pass, and so is a target on a part, since
 * parts do not merge branches (docs/decisions/runs.md, "Branch rules").
 */
function parseBranchRules(
  data: z.infer<typeof ingestBody>,
  branches: { covered: number; total: number } | null,
  part: string | null,
): Pick<IngestFields, 'patchBranches' | 'branchTarget' | 'patchBranchTarget'> {
  const patchBranches = data.patch?.branches ?? null;
  const branchTarget = data.branch_target ?? null;
  const patchBranchTarget = data.patch_branch_target ?? null;
  if (patchBranches !== null) {
    if (branches === null) throw invalid('patch.branches (needs branches)');
    if (patchBranches.total > branches.total)
      throw invalid('patch.branches.total (more than branches.total)');
  }
  if (branchTarget !== null && branches === null) throw invalid('branch_target (needs branches)');
  if (patchBranchTarget !== null && patchBranches === null)
    throw invalid('patch_branch_target (needs patch.branches)');
  if (part !== null) {
    if (branchTarget !== null) throw invalid('branch_target (parts do not merge branches)');
    if (patchBranchTarget !== null)
      throw invalid('patch_branch_target (parts do not merge branches)');
  }
  return { patchBranches, branchTarget, patchBranchTarget };
}

/** A parsed ingest body: its fields, and what the server takes from it besides. */
export interface IngestInput extends IngestFields {
  /** The organisation the body names, checked against the credential; undefined when none. */
  org: string | undefined;
  /** The repository's code-host URL (normalised), kept as its `web_url` when it has none. */
  repoUrl: string | null;
  /** Sorted by path (see {@link byPath}); null when the run sent no list. */
  files: FileEntry[] | null;
  /** The line data of the entries that sent it, sorted by path; null when none did. */
  lines: FileLines[] | null;
}

/** `files[12].covered`: where in the body an issue is. */
function fieldName(path: readonly PropertyKey[]): string {
  let name = '';
  for (const part of path) {
    name += typeof part === 'number' ? `[${part}]` : `${name === '' ? '' : '.'}${String(part)}`;
  }
  return name;
}

/**
 * Validates `POST /v1/executions`'s body. A failure is `400 invalid parameter: <field>`, the
 * field named with its path (`patch.covered`, `files[12].path`), followed by the reason in
 * parentheses where a name alone does not say it (`(more than coverable)`,
 * `(more than 50000 entries)`, `(repeated path: src/a.ts)`).
 */
export function parseIngestBody(body: unknown): IngestInput {
  const result = ingestBody.safeParse(body ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    if (!issue || issue.path.length === 0) throw new ApiError(400, ERRORS.malformedRequest);
    // Only the reasons written here are shown: zod's own wording is not part of the contract.
    const ours = issue.message === 'more than coverable' || issue.message === 'more than total';
    const detail = ours ? issue.message : '';
    throw new ApiError(
      400,
      `invalid parameter: ${fieldName(issue.path)}${detail ? ` (${detail})` : ''}`,
    );
  }
  const data = result.data;
  const parsed = parseFiles(data.files);
  const branches = data.branches ?? null;
  checkBranchTotals(branches, parsed?.files ?? null);
  const part = data.part ?? null;
  if (part !== null && data.commit == null) throw invalid('part (needs commit)');
  const rules = parseBranchRules(data, branches, part);
  const expectParts = data.expect_parts == null ? null : parseExpectedParts(data.expect_parts);
  if (data.expect_parts != null && (expectParts === null || part === null))
    throw invalid(`expect_parts${part === null ? ' (only with part)' : ''}`);
  const carryforward = data.carryforward == null ? null : parseCarryforward(data.carryforward);
  if (data.carryforward != null && (carryforward === null || part === null))
    throw invalid(`carryforward${part === null ? ' (only with part)' : ''}`);
  const repoUrl = data.repo_url == null ? null : normaliseWebUrl(data.repo_url);
  if (data.repo_url != null && repoUrl === null) throw invalid('repo_url');
  return {
    org: data.org,
    repo: data.repo,
    branch: data.branch,
    coverage: data.coverage,
    baseBranch: data.base_branch,
    commit: data.commit ?? null,
    warnThreshold: data.warn_threshold,
    failThreshold: data.fail_threshold,
    component: data.component ?? null,
    pullRequest: data.pull_request ?? null,
    baseCommit: data.base_commit ?? null,
    patch:
      data.patch == null ? null : { covered: data.patch.covered, coverable: data.patch.coverable },
    ...rules,
    patchTarget: data.patch_target ?? null,
    projectTarget: data.project_target ?? null,
    projectInformational: data.project_informational ?? false,
    patchInformational: data.patch_informational ?? false,
    policyDigest: data.policy?.digest ?? null,
    policyCommit: data.policy?.commit ?? null,
    policyEdited: data.policy_edited ?? null,
    commentSections: commentSections(data.comment),
    branches,
    part,
    expectParts,
    carryforward,
    repoUrl,
    files: parsed?.files ?? null,
    lines: parsed?.lines ?? null,
  };
}
