import { randomBytes, randomUUID } from 'node:crypto';
import type {
  ExecutionRecord,
  IdempotencyKeyClaim,
  InviteRecord,
  Organisation,
  SessionRecord,
  SignInLinkRecord,
  TokenRecord,
  User,
} from '@covgate/core';
import { monotonicFactory } from 'ulid';

const nextUlid = monotonicFactory();

/** Whole-second instant all fixtures default to (stores may truncate milliseconds). */
export const FIXTURE_TIME = new Date('2025-01-15T10:00:00Z');

/**
 * Returns `base` moved by a whole number of seconds; fixtures use it to build distinct,
 * whole-second timestamps.
 */
export function secondsAfter(base: Date, seconds: number): Date {
  return new Date(base.getTime() + seconds * 1000);
}

/**
 * A fresh lowercase ULID with `prefix` (`exe_`, `org_`...). Ids come from one monotonic
 * factory, so an id made later always sorts after an id made earlier in the same process.
 */
export function newPrefixedId(prefix: string): string {
  return `${prefix}${nextUlid().toLowerCase()}`;
}

/** A fresh random lowercase string for slugs, repo names and external ids. */
export function randomSuffix(): string {
  return randomBytes(6).toString('hex');
}

/** 64 fresh random hex digits, the size of a SHA-256 digest (token hashes, request digests). */
function randomSha256Hex(): string {
  return randomBytes(32).toString('hex');
}

/**
 * `createdAt` (the one in `overrides`, else {@link FIXTURE_TIME}) and an `expiresAt`
 * `lifetimeSeconds` after it, so a given `createdAt` moves the expiry with it.
 */
function lifetime(
  overrides: { createdAt?: Date },
  lifetimeSeconds: number,
): { createdAt: Date; expiresAt: Date } {
  const createdAt = overrides.createdAt ?? new Date(FIXTURE_TIME);
  return { createdAt, expiresAt: secondsAfter(createdAt, lifetimeSeconds) };
}

/** An organisation with a fresh id and slug, plan `free`; `overrides` replace any field. */
export function buildOrganisation(overrides: Partial<Organisation> = {}): Organisation {
  const suffix = randomSuffix();
  return {
    id: newPrefixedId('org_'),
    slug: `org-${suffix}`,
    name: `Organisation ${suffix}`,
    plan: 'free',
    createdAt: new Date(FIXTURE_TIME),
    ...overrides,
  };
}

/** A code-host user with a fresh id and external id; `overrides` replace any field. */
export function buildUser(overrides: Partial<User> = {}): User {
  const suffix = randomSuffix();
  return {
    id: newPrefixedId('usr_'),
    provider: 'github',
    externalId: suffix,
    login: `user-${suffix}`,
    createdAt: new Date(FIXTURE_TIME),
    ...overrides,
  };
}

/**
 * An `active` token with a fresh 32-hex id, scope `execute`, a placeholder hash and no use
 * yet; give `orgId` (a fresh one is made otherwise) and any other field to override.
 */
export function buildTokenRecord(overrides: Partial<TokenRecord> = {}): TokenRecord {
  const id = randomUUID().replaceAll('-', '');
  return {
    id,
    orgId: newPrefixedId('org_'),
    name: `token ${id.slice(0, 8)}`,
    scopes: ['execute'],
    agentType: '',
    hash: `$argon2id$v=19$m=19456,t=2,p=1$${randomBytes(16).toString('base64')}`,
    status: 'active',
    createdAt: new Date(FIXTURE_TIME),
    lastUsedAt: null,
    gracePeriodEndsAt: null,
    ...overrides,
  };
}

/**
 * A session with a fresh id and token hash, valid 24 hours from its creation; give `userId`
 * and `orgId` (fresh ones are made otherwise) and any other field to override.
 */
export function buildSession(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: newPrefixedId('ses_'),
    tokenHash: randomSha256Hex(),
    userId: newPrefixedId('usr_'),
    orgId: newPrefixedId('org_'),
    ...lifetime(overrides, 24 * 60 * 60),
    ...overrides,
  };
}

/**
 * An open `member` invite with a fresh id and token hash, made by a fresh user, valid 7 days
 * from its creation; give `orgId` (a fresh one is made otherwise) and any other field to override.
 */
export function buildInvite(overrides: Partial<InviteRecord> = {}): InviteRecord {
  return {
    id: newPrefixedId('inv_'),
    orgId: newPrefixedId('org_'),
    tokenHash: randomSha256Hex(),
    role: 'member',
    createdBy: newPrefixedId('usr_'),
    ...lifetime(overrides, 7 * 24 * 60 * 60),
    acceptedBy: null,
    acceptedAt: null,
    revokedAt: null,
    ...overrides,
  };
}

/**
 * An unused sign-in link with a fresh id and token hash, valid 15 minutes from its creation;
 * give `userId` and `orgId` (fresh ones are made otherwise) and any other field to override.
 */
export function buildSignInLink(overrides: Partial<SignInLinkRecord> = {}): SignInLinkRecord {
  return {
    id: newPrefixedId('lnk_'),
    tokenHash: randomSha256Hex(),
    userId: newPrefixedId('usr_'),
    orgId: newPrefixedId('org_'),
    role: 'owner',
    ...lifetime(overrides, 15 * 60),
    usedAt: null,
    ...overrides,
  };
}

/**
 * A `pass` execution on `main` of a fresh repository with a fresh id (later calls make
 * higher ids, see {@link newPrefixedId}); give `orgId`, `repo` and any other field to override.
 */
export function buildExecution(overrides: Partial<ExecutionRecord> = {}): ExecutionRecord {
  return {
    id: newPrefixedId('exe_'),
    orgId: newPrefixedId('org_'),
    repo: `repo-${randomSuffix()}`,
    branch: 'main',
    outcome: 'pass',
    delta: '0.00',
    coverage: 80,
    commit: null,
    createdAt: new Date(FIXTURE_TIME),
    baseBranch: 'main',
    baselineId: null,
    baselineCoverage: null,
    baselineCommit: null,
    baselineCreatedAt: null,
    baselineSelection: null,
    component: null,
    pullRequest: null,
    baseCommit: null,
    patchCovered: null,
    patchCoverable: null,
    patchTarget: null,
    patchTargetSource: null,
    decidedBy: 'delta',
    fileCount: null,
    projectTarget: null,
    projectTargetSource: null,
    policyDigest: null,
    policyCommit: null,
    policyEdited: null,
    commentSections: null,
    branchesCovered: null,
    branchesTotal: null,
    branchTarget: null,
    patchBranchesCovered: null,
    patchBranchesTotal: null,
    patchBranchTarget: null,
    parts: null,
    postedBy: null,
    skipReason: null,
    feedback: null,
    ...overrides,
  };
}

/**
 * An idempotency key claim with a fresh key and digest, made at {@link FIXTURE_TIME} and
 * remembered 24 hours; `overrides` replace any field (`expiresAt` follows a given `createdAt`).
 */
export function buildIdempotencyClaim(
  overrides: Partial<IdempotencyKeyClaim> = {},
): IdempotencyKeyClaim {
  return {
    key: `key-${randomSuffix()}`,
    requestDigest: randomSha256Hex(),
    ...lifetime(overrides, 24 * 60 * 60),
    ...overrides,
  };
}
