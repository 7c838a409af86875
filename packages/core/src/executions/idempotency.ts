import { createHash } from 'node:crypto';
import type { CommentSection, PolicyFileName } from '../storage/records/executions.js';
import type { Carryforward } from './carryforward.js';
import type { ExpectedParts } from './parts.js';

/** The request header that makes an ingest idempotent. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The response header that marks an answer as the replay of an earlier one. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** How long a key is remembered after the ingest that stored it: 24 h. */
export const IDEMPOTENCY_KEY_LIFETIME_SECONDS = 86_400;

/** 1-255 visible ASCII characters (`!` to `~`): no space, no control, nothing beyond ASCII. */
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/**
 * Whether a header value is a usable idempotency key. Two `Idempotency-Key` headers reach
 * the server joined by `, `, whose space makes them refused too.
 */
export function isValidIdempotencyKey(value: string): boolean {
  return KEY_SHAPE.test(value);
}

/**
 * An ingest after validation and defaults, as the client sent it: an optional field it left
 * out is null.
 */
export interface IngestFields {
  repo: string;
  branch: string;
  coverage: number;
  baseBranch: string;
  commit: string | null;
  warnThreshold: number;
  failThreshold: number;
  component: string | null;
  pullRequest: number | null;
  baseCommit: string | null;
  patch: { covered: number; coverable: number } | null;
  /** The run's own patch target, null when it sent none (it applies only with a patch). */
  patchTarget: number | null;
  /** The run's absolute floor on its coverage, null when it sent none. */
  projectTarget: number | null;
  /** The project rules report but never fail the run. */
  projectInformational: boolean;
  /** The patch rule reports but never fails the run. */
  patchInformational: boolean;
  /** The policy file's sha256, null when the run sent none. */
  policyDigest: string | null;
  /** The commit the policy file was read at, null when not sent. */
  policyCommit: string | null;
  /** The policy file the change edits (`covgate.yml`), null when it edits none or did not say. */
  policyEdited: PolicyFileName | null;
  /** The comment's sections the run's policy asks for; null for all (the default). */
  commentSections: CommentSection[] | null;
  /** The run's branch counts (issue 43), null when it sent none. */
  branches: { covered: number; total: number } | null;
  /** The patch's branch counts (the changed lines' branches), null when it sent none. */
  patchBranches: { covered: number; total: number } | null;
  /** The project branch rule's floor on the run's branch percent, null when it sent none. */
  branchTarget: number | null;
  /** The patch branch rule's target, null when it sent none. */
  patchBranchTarget: number | null;
  /** The part of a commit's report the run is (`unit`, `shard-2-of-4`), or null. */
  part: string | null;
  /** The parts the run says its commit's report expects: names or a count; null when none. */
  expectParts: ExpectedParts | null;
  /** Which of its commit's missing parts the run lets be carried forward; null when it says none. */
  carryforward: Carryforward | null;
}

/** The ingest as the server understands it: what makes two requests the same request. */
export interface CanonicalIngest extends IngestFields {
  /** The organisation of the credential (a body's `org` only names it). */
  orgId: string;
  /** The `fileListDigest` of the sorted `files`, null without a list. */
  filesDigest: string | null;
}

/**
 * Hex SHA-256 of an ingest after validation and defaults (the `files` list as its own digest,
 * of the list sorted by path): key order, white space, the
 * spelling of a number (`84.1`, `84.10`), a default left out or spelt out, the commit's
 * letter case and the `org` field (the organisation comes from the credential) make no
 * difference; any change of meaning does.
 */
export function ingestDigest(ingest: CanonicalIngest): string {
  const extra = [
    ingest.component,
    ingest.pullRequest,
    ingest.baseCommit,
    ingest.patch?.covered ?? null,
    ingest.patch?.coverable ?? null,
    ingest.patchTarget,
    ingest.filesDigest,
  ];
  // A request without the newer fields keeps the digest it had before they existed, so a
  // retry that spans an upgrade is still recognised.
  const canonical = JSON.stringify([
    'covgate.ingest.v1',
    ingest.orgId,
    ingest.repo,
    ingest.branch,
    ingest.coverage,
    ingest.baseBranch,
    ingest.commit,
    ingest.warnThreshold,
    ingest.failThreshold,
    ...(extra.every((value) => value === null) ? [] : extra),
    ...(ingest.policyDigest === null ? [] : ['policy', ingest.policyDigest, ingest.policyCommit]),
    ...(ingest.projectTarget === null && !ingest.projectInformational && !ingest.patchInformational
      ? []
      : ['rules', ingest.projectTarget, ingest.projectInformational, ingest.patchInformational]),
    ...(ingest.branches === null
      ? []
      : ['branches', ingest.branches.covered, ingest.branches.total]),
    ...(ingest.patchBranches === null &&
    ingest.branchTarget === null &&
    ingest.patchBranchTarget === null
      ? []
      : [
          'branch_rules',
          ingest.patchBranches?.covered ?? null,
          ingest.patchBranches?.total ?? null,
          ingest.branchTarget,
          ingest.patchBranchTarget,
        ]),
    ...(ingest.part === null
      ? []
      : [
          'part',
          ingest.part,
          ingest.expectParts,
          ...(ingest.carryforward === null ? [] : [ingest.carryforward]),
        ]),
    ...(ingest.policyEdited === null ? [] : ['policy_edited', ingest.policyEdited]),
    ...(ingest.commentSections === null ? [] : ['comment', ingest.commentSections]),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** The instant a key stored at `at` stops being remembered. */
export function idempotencyKeyExpiry(at: Date): Date {
  return new Date(at.getTime() + IDEMPOTENCY_KEY_LIFETIME_SECONDS * 1000);
}

/**
 * Expired keys are deleted by the API itself, at most once an hour per store instance (one
 * per process), up to this many keys at a time, after an ingest that stored a key: every
 * process sweeps, so a cluster keeps the table to about one day of keys without a job.
 */
export const IDEMPOTENCY_SWEEP = { intervalMs: 3_600_000, batchSize: 1_000 } as const;

const lastSweepAt = new WeakMap<object, number>();

/** Whether `store` is due a sweep at `now`; answering true records `now` as its last sweep. */
export function takeSweepTurn(store: object, now: Date): boolean {
  const last = lastSweepAt.get(store);
  const since = last === undefined ? Number.POSITIVE_INFINITY : now.getTime() - last;
  if (since >= 0 && since < IDEMPOTENCY_SWEEP.intervalMs) return false;
  lastSweepAt.set(store, now.getTime());
  return true;
}
