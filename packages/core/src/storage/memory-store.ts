import { makerMayStillInvite } from '../invites/invite-rules.js';
import { wholeSeconds } from '../time/timestamp.js';
import { deliveryError, deliveryRows, leaseEnd } from './kit/deliveries.js';
import { isEmptyFilter } from './kit/execution-filter.js';
import { SortedExecutions } from './memory/sorted-executions.js';
import { compareOldestFirst } from './record-order.js';
import {
  type DeliveryAttemptOutcome,
  type DeliveryRecord,
  type ExecutionFilter,
  type ExecutionRecord,
  type GithubOrgLink,
  type IdempotencyKeyClaim,
  type IdempotentExecution,
  type InviteAcceptance,
  type InviteRecord,
  type InviteRevocation,
  type KeyedInsertResult,
  type ListExecutionsQuery,
  type MemberChange,
  type MemberListing,
  type Membership,
  type NewDelivery,
  type Organisation,
  type OutboxStats,
  type Plan,
  type PlanChangeResult,
  type RepositoryLink,
  type RepositorySettings,
  type RepositorySummary,
  type Role,
  type SessionRecord,
  type SignInLinkRecord,
  type Store,
  StoreConflictError,
  type TokenRecord,
  type User,
  type UserOrganisation,
} from './store.js';
import { TokenHashedRecords } from './token-hashed-records.js';

/**
 * Executions of one repository: all of them, and per component and branch (see
 * {@link branchKey}) for baseline and badge look-ups.
 */
interface RepoExecutions {
  all: SortedExecutions;
  byBranch: Map<string, SortedExecutions>;
  count: number;
  /** The newest record: what a SQL store keeps on its counter row. */
  latest: ExecutionRecord | null;
}

/** A stored idempotency key: its request digest, its execution and when it dies. */
interface StoredIdempotencyKey {
  requestDigest: string;
  record: ExecutionRecord;
  expiresAt: Date;
}

/**
 * Records go in and out as copies no caller can change the stored record through. Records hold
 * strings, numbers, booleans, null, dates and arrays of strings, which a spread plus fresh dates
 * and arrays covers at a fraction of `structuredClone`'s cost (the store is on the path of every
 * request). The spread matters: adding twenty-odd fields one by one to `{}` turns an object
 * into a hash table, and every later copy of it is several times slower.
 */
function copy<T>(value: T): T {
  const out = { ...value } as Record<string, unknown>;
  // for...in over a plain record (no inherited enumerable keys): no entries array per copy.
  for (const key in out) {
    const field = out[key];
    if (typeof field !== 'object' || field === null) continue;
    if (field instanceof Date) out[key] = new Date(field.getTime());
    else if (Array.isArray(field)) out[key] = [...field];
    else out[key] = structuredClone(field);
  }
  return out as T;
}

/** {@link copy} of an execution record, whose only fields that are not scalars are its dates. */
function copyExecution(record: ExecutionRecord): ExecutionRecord {
  const { createdAt, baselineCreatedAt } = record;
  return {
    ...record,
    createdAt: new Date(createdAt.getTime()),
    baselineCreatedAt: baselineCreatedAt && new Date(baselineCreatedAt.getTime()),
  };
}

/** The key of a component's branch: a component is never empty, so `''` stands for none. */
const branchKey = (component: string | null | undefined, branch: string): string =>
  pairKey(component ?? '', branch);

/** A map key for a pair of strings that no choice of the strings can make ambiguous. */
const pairKey = (first: string, second: string): string => JSON.stringify([first, second]);

/**
 * The reference {@link Store}: everything in process memory, lost on exit. Every method runs
 * to completion without yielding, which makes each one atomic and makes concurrent claims,
 * rotations and find-or-create calls exact. For tests, development and single-process demos.
 */
class MemoryStore implements Store {
  #closed = false;
  readonly #organisations = new Map<string, Organisation>();
  readonly #organisationIdBySlug = new Map<string, string>();
  readonly #personalOrganisationIdByUser = new Map<string, string>();
  /** Time of the last plan change applied by {@link applyPlanChange}, per organisation id. */
  readonly #planChangedAt = new Map<string, number>();
  readonly #users = new Map<string, User>();
  readonly #userIdByIdentity = new Map<string, string>();
  readonly #tokens = new Map<string, TokenRecord>();
  readonly #tokenIdsByOrg = new Map<string, Set<string>>();
  readonly #sessions = new TokenHashedRecords<SessionRecord>('session');
  /** Memberships by organisation id, then by user id. */
  readonly #members = new Map<string, Map<string, Membership>>();
  /** Links by organisation id. */
  readonly #githubOrgLinks = new Map<string, GithubOrgLink>();
  readonly #invites = new TokenHashedRecords<InviteRecord>('invite');
  readonly #signInLinks = new TokenHashedRecords<SignInLinkRecord>('sign-in link');
  readonly #executionIds = new Set<string>();
  /** Per-file lists by execution id, with the organisation that owns them. */
  readonly #executionFiles = new Map<string, { orgId: string; files: Uint8Array }>();
  readonly #executionsById = new Map<string, ExecutionRecord>();
  readonly #repositorySettings = new Map<string, RepositorySettings>();
  readonly #executionsByOrg = new Map<string, Map<string, RepoExecutions>>();
  readonly #webhookClaims = new Map<string, Date>();
  readonly #idempotencyKeys = new Map<string, StoredIdempotencyKey>();
  readonly #repositoryLinks = new Map<string, RepositoryLink>();
  /** The outbox, by delivery id, in insertion (so id) order. */
  readonly #deliveries = new Map<string, DeliveryRecord>();

  async createOrganisation(org: Organisation): Promise<void> {
    this.#assertOpen();
    this.#addOrganisation(org);
  }

  async findOrganisationById(id: string): Promise<Organisation | null> {
    this.#assertOpen();
    return this.#copyOrNull(this.#organisations.get(id));
  }

  async findOrganisationBySlug(slug: string): Promise<Organisation | null> {
    this.#assertOpen();
    const id = this.#organisationIdBySlug.get(slug);
    return id === undefined ? null : this.#copyOrNull(this.#organisations.get(id));
  }

  async setOrganisationPlan(id: string, plan: Plan): Promise<boolean> {
    this.#assertOpen();
    const org = this.#organisations.get(id);
    if (!org) return false;
    org.plan = plan;
    return true;
  }

  async applyPlanChange(id: string, plan: Plan, eventAt: Date): Promise<PlanChangeResult> {
    this.#assertOpen();
    const org = this.#organisations.get(id);
    if (!org) return 'unknown';
    const at = Math.floor(eventAt.getTime() / 1000) * 1000;
    const last = this.#planChangedAt.get(id);
    if (last !== undefined && at < last) return 'stale';
    org.plan = plan;
    this.#planChangedAt.set(id, at);
    return 'applied';
  }

  async createPersonalOrganisation(org: Organisation, userId: string): Promise<void> {
    this.#assertOpen();
    if (this.#personalOrganisationIdByUser.has(userId)) {
      throw new StoreConflictError(`user already has a personal organisation: ${userId}`);
    }
    this.#addOrganisation(org);
    this.#personalOrganisationIdByUser.set(userId, org.id);
  }

  async findPersonalOrganisation(userId: string): Promise<Organisation | null> {
    this.#assertOpen();
    const id = this.#personalOrganisationIdByUser.get(userId);
    return id === undefined ? null : this.#copyOrNull(this.#organisations.get(id));
  }

  async findOrCreateUser(candidate: User): Promise<User> {
    this.#assertOpen();
    const identity = pairKey(candidate.provider, candidate.externalId);
    const existingId = this.#userIdByIdentity.get(identity);
    const existing = existingId === undefined ? undefined : this.#users.get(existingId);
    if (existing) return copy(existing);
    if (this.#users.has(candidate.id)) {
      throw new StoreConflictError(`user id already exists: ${candidate.id}`);
    }
    this.#users.set(candidate.id, copy(candidate));
    this.#userIdByIdentity.set(identity, candidate.id);
    return copy(candidate);
  }

  async findUserById(id: string): Promise<User | null> {
    this.#assertOpen();
    return this.#copyOrNull(this.#users.get(id));
  }

  async insertToken(token: TokenRecord): Promise<void> {
    this.#assertOpen();
    this.#addToken(token);
  }

  async findTokenById(id: string): Promise<TokenRecord | null> {
    this.#assertOpen();
    return this.#copyOrNull(this.#tokens.get(id));
  }

  async listTokensByOrg(orgId: string): Promise<TokenRecord[]> {
    this.#assertOpen();
    const ids = this.#tokenIdsByOrg.get(orgId) ?? new Set<string>();
    return [...ids]
      .map((id) => this.#tokens.get(id)!)
      .sort((a, b) => compareOldestFirst(b, a))
      .map(copy);
  }

  async updateToken(
    id: string,
    patch: { name?: string; scopes?: string[] },
  ): Promise<TokenRecord | null> {
    this.#assertOpen();
    const token = this.#tokens.get(id);
    if (!token) return null;
    if (patch.name !== undefined) token.name = patch.name;
    if (patch.scopes !== undefined) token.scopes = [...patch.scopes];
    return copy(token);
  }

  async revokeToken(id: string): Promise<boolean> {
    this.#assertOpen();
    const token = this.#tokens.get(id);
    if (!token) return false;
    token.status = 'revoked';
    return true;
  }

  async rotateToken(
    oldId: string,
    replacement: TokenRecord,
    gracePeriodEndsAt: Date,
  ): Promise<boolean> {
    this.#assertOpen();
    const old = this.#tokens.get(oldId);
    if (old?.status !== 'active') return false;
    this.#addToken(replacement);
    old.status = 'rotating';
    old.gracePeriodEndsAt = new Date(gracePeriodEndsAt);
    return true;
  }

  async touchToken(id: string, at: Date): Promise<void> {
    this.#assertOpen();
    const token = this.#tokens.get(id);
    if (token) token.lastUsedAt = new Date(at);
  }

  async replaceTokenHash(id: string, expectedHash: string, newHash: string): Promise<boolean> {
    this.#assertOpen();
    const token = this.#tokens.get(id);
    if (!token || token.hash !== expectedHash) return false;
    token.hash = newHash;
    return true;
  }

  async insertSession(session: SessionRecord): Promise<void> {
    this.#assertOpen();
    this.#sessions.insert(copy(session));
  }

  async findSessionByTokenHash(tokenHash: string): Promise<SessionRecord | null> {
    this.#assertOpen();
    return this.#copyOrNull(this.#sessions.byTokenHash(tokenHash));
  }

  async findSessionById(id: string): Promise<SessionRecord | null> {
    this.#assertOpen();
    return this.#copyOrNull(this.#sessions.byId(id));
  }

  async deleteSession(id: string): Promise<boolean> {
    this.#assertOpen();
    return this.#sessions.delete(id);
  }

  async setSessionOrganisation(id: string, orgId: string): Promise<boolean> {
    this.#assertOpen();
    const session = this.#sessions.byId(id);
    if (!session) return false;
    session.orgId = orgId;
    return true;
  }

  async addMember(member: Membership): Promise<boolean> {
    this.#assertOpen();
    return this.#putMember(member);
  }

  #putMember(member: Membership): boolean {
    let members = this.#members.get(member.orgId);
    if (!members) {
      members = new Map();
      this.#members.set(member.orgId, members);
    }
    if (members.has(member.userId)) return false;
    members.set(member.userId, { ...copy(member), createdAt: wholeSeconds(member.createdAt) });
    return true;
  }

  async findMember(orgId: string, userId: string): Promise<Membership | null> {
    this.#assertOpen();
    return this.#copyOrNull(this.#members.get(orgId)?.get(userId));
  }

  async listMembers(orgId: string): Promise<MemberListing[]> {
    this.#assertOpen();
    return [...(this.#members.get(orgId)?.values() ?? [])]
      .sort(
        (a, b) =>
          a.createdAt.getTime() - b.createdAt.getTime() ||
          (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0),
      )
      .map((member) => ({ ...copy(member), login: this.#users.get(member.userId)?.login ?? null }));
  }

  async listUserOrganisations(userId: string): Promise<UserOrganisation[]> {
    this.#assertOpen();
    const found: UserOrganisation[] = [];
    for (const [orgId, members] of this.#members) {
      const member = members.get(userId);
      const organisation = this.#organisations.get(orgId);
      if (member && organisation)
        found.push({ organisation: copy(organisation), role: member.role });
    }
    return found.sort((a, b) =>
      a.organisation.slug < b.organisation.slug
        ? -1
        : a.organisation.slug > b.organisation.slug
          ? 1
          : 0,
    );
  }

  async changeMemberRole(orgId: string, userId: string, role: Role): Promise<MemberChange> {
    this.#assertOpen();
    const member = this.#members.get(orgId)?.get(userId);
    if (!member) return 'unknown';
    if (role !== 'owner' && this.#isLastOwner(member)) return 'last-owner';
    member.role = role;
    return 'done';
  }

  async removeMember(orgId: string, userId: string): Promise<MemberChange> {
    this.#assertOpen();
    const members = this.#members.get(orgId);
    const member = members?.get(userId);
    if (!members || !member) return 'unknown';
    if (this.#isLastOwner(member)) return 'last-owner';
    members.delete(userId);
    return 'done';
  }

  async linkGithubOrg(link: GithubOrgLink): Promise<'done' | 'taken'> {
    this.#assertOpen();
    for (const other of this.#githubOrgLinks.values()) {
      if (other.githubOrg === link.githubOrg && other.orgId !== link.orgId) return 'taken';
    }
    this.#githubOrgLinks.set(link.orgId, { ...copy(link), linkedAt: wholeSeconds(link.linkedAt) });
    return 'done';
  }

  async findGithubOrgLink(orgId: string): Promise<GithubOrgLink | null> {
    this.#assertOpen();
    return this.#copyOrNull(this.#githubOrgLinks.get(orgId));
  }

  async listGithubOrgLinks(): Promise<GithubOrgLink[]> {
    this.#assertOpen();
    return [...this.#githubOrgLinks.values()]
      .map((link) => copy(link))
      .sort((a, b) => (a.githubOrg < b.githubOrg ? -1 : a.githubOrg > b.githubOrg ? 1 : 0));
  }

  async unlinkGithubOrg(orgId: string): Promise<boolean> {
    this.#assertOpen();
    return this.#githubOrgLinks.delete(orgId);
  }

  /** Whether `member` is an owner and no other member of its organisation is. */
  #isLastOwner(member: Membership): boolean {
    if (member.role !== 'owner') return false;
    for (const other of this.#members.get(member.orgId)?.values() ?? []) {
      if (other !== member && other.role === 'owner') return false;
    }
    return true;
  }

  async insertInvite(invite: InviteRecord): Promise<void> {
    this.#assertOpen();
    this.#invites.insert(copy(invite));
  }

  async findInviteById(id: string): Promise<InviteRecord | null> {
    this.#assertOpen();
    return this.#copyOrNull(this.#invites.byId(id));
  }

  async findInviteByTokenHash(tokenHash: string): Promise<InviteRecord | null> {
    this.#assertOpen();
    return this.#copyOrNull(this.#invites.byTokenHash(tokenHash));
  }

  async listInvites(orgId: string): Promise<InviteRecord[]> {
    this.#assertOpen();
    return [...this.#invites.values()]
      .filter((invite) => invite.orgId === orgId)
      .sort((a, b) => compareOldestFirst(b, a))
      .map(copy);
  }

  async revokeInvite(id: string, at: Date): Promise<InviteRevocation> {
    this.#assertOpen();
    const invite = this.#invites.byId(id);
    if (!invite) return 'unknown';
    if (invite.acceptedAt !== null) return 'accepted';
    if (invite.revokedAt !== null) return 'already-revoked';
    invite.revokedAt = wholeSeconds(at);
    return 'revoked';
  }

  async acceptInvite(tokenHash: string, userId: string, at: Date): Promise<InviteAcceptance> {
    this.#assertOpen();
    const invite = this.#invites.byTokenHash(tokenHash);
    if (
      !invite ||
      invite.acceptedAt !== null ||
      invite.revokedAt !== null ||
      invite.expiresAt.getTime() <= at.getTime()
    ) {
      return { outcome: 'refused' };
    }
    const members = this.#members.get(invite.orgId);
    if (!makerMayStillInvite(members?.get(invite.createdBy) ?? null)) {
      return { outcome: 'maker-lost-right', invite: copy(invite) };
    }
    const existing = members?.get(userId);
    if (existing)
      return { outcome: 'already-member', invite: copy(invite), member: copy(existing) };
    const member: Membership = {
      orgId: invite.orgId,
      userId,
      role: invite.role,
      createdAt: wholeSeconds(at),
    };
    // No await between the checks and the writes: concurrent calls cannot interleave.
    this.#putMember(member);
    invite.acceptedBy = userId;
    invite.acceptedAt = wholeSeconds(at);
    return { outcome: 'accepted', invite: copy(invite), member };
  }

  async insertSignInLink(link: SignInLinkRecord): Promise<void> {
    this.#assertOpen();
    this.#signInLinks.insert(copy(link));
  }

  async useSignInLink(tokenHash: string, at: Date): Promise<SignInLinkRecord | null> {
    this.#assertOpen();
    const link = this.#signInLinks.byTokenHash(tokenHash);
    if (!link || link.usedAt !== null || link.expiresAt.getTime() <= at.getTime()) return null;
    link.usedAt = wholeSeconds(at);
    return copy(link);
  }

  async insertExecution(
    record: ExecutionRecord,
    files?: Uint8Array | null,
    deliveries?: readonly NewDelivery[],
  ): Promise<void> {
    this.#assertOpen();
    this.#addExecution(record, files, deliveries);
  }

  async findExecution(orgId: string, id: string): Promise<ExecutionRecord | null> {
    this.#assertOpen();
    const record = this.#executionsById.get(id);
    return record && record.orgId === orgId ? copyExecution(record) : null;
  }

  async findExecutionFiles(orgId: string, id: string): Promise<Uint8Array | null> {
    this.#assertOpen();
    const stored = this.#executionFiles.get(id);
    return stored && stored.orgId === orgId ? new Uint8Array(stored.files) : null;
  }

  #addExecution(
    record: ExecutionRecord,
    files: Uint8Array | null | undefined,
    deliveries: readonly NewDelivery[] | undefined,
  ): void {
    if (this.#executionIds.has(record.id)) {
      throw new StoreConflictError(`execution id already exists: ${record.id}`);
    }
    const rows = deliveryRows(record, deliveries);
    if (rows.some((row) => this.#deliveries.has(row.id))) {
      throw new StoreConflictError('delivery id already exists');
    }
    for (const row of rows) this.#deliveries.set(row.id, row);
    const stored = copyExecution(record);
    const repo = this.#repoFor(record.orgId, record.repo);
    const key = branchKey(record.component, record.branch);
    let branch = repo.byBranch.get(key);
    if (!branch) {
      branch = new SortedExecutions();
      repo.byBranch.set(key, branch);
    }
    this.#executionsById.set(record.id, stored);
    if (files) {
      this.#executionFiles.set(record.id, { orgId: record.orgId, files: new Uint8Array(files) });
    }
    repo.all.insert(stored);
    branch.insert(stored);
    repo.count += 1;
    if (repo.latest === null || compareOldestFirst(repo.latest, stored) < 0) repo.latest = stored;
    this.#executionIds.add(record.id);
  }

  async insertKeyedExecution(
    record: ExecutionRecord,
    claim: IdempotencyKeyClaim,
    files?: Uint8Array | null,
    deliveries?: readonly NewDelivery[],
  ): Promise<KeyedInsertResult> {
    this.#assertOpen();
    const existing = this.#liveKey(record.orgId, claim.key, claim.createdAt);
    if (existing) return { inserted: false, ...existing };
    // No await between the look-up and the writes: concurrent calls cannot interleave.
    this.#addExecution(record, files, deliveries);
    this.#idempotencyKeys.set(pairKey(record.orgId, claim.key), {
      requestDigest: claim.requestDigest,
      record: copy(record),
      expiresAt: new Date(claim.expiresAt),
    });
    return { inserted: true };
  }

  async findIdempotentExecution(
    orgId: string,
    key: string,
    now: Date,
  ): Promise<IdempotentExecution | null> {
    this.#assertOpen();
    return this.#liveKey(orgId, key, now);
  }

  async deleteExpiredIdempotencyKeys(now: Date, limit: number): Promise<number> {
    this.#assertOpen();
    let deleted = 0;
    for (const [key, stored] of this.#idempotencyKeys) {
      if (deleted >= limit) break;
      if (stored.expiresAt.getTime() <= now.getTime()) {
        this.#idempotencyKeys.delete(key);
        deleted += 1;
      }
    }
    return deleted;
  }

  async listExecutions(query: ListExecutionsQuery): Promise<ExecutionRecord[]> {
    this.#assertOpen();
    const repo = this.#findRepo(query.orgId, query.repo);
    const accept = matches(query);
    return repo ? repo.all.newestFirst(query.limit, query.after, accept).map(copyExecution) : [];
  }

  async countExecutions(orgId: string, repo: string, filter?: ExecutionFilter): Promise<number> {
    this.#assertOpen();
    const found = this.#findRepo(orgId, repo);
    if (!found) return 0;
    if (filter === undefined || isEmptyFilter(filter)) return found.count;
    return found.all.count(matches(filter));
  }

  async findOldestExecution(
    orgId: string,
    repo: string,
    filter: ExecutionFilter,
  ): Promise<ExecutionRecord | null> {
    this.#assertOpen();
    return this.#copyOrNull(this.#findRepo(orgId, repo)?.all.oldest(matches(filter)));
  }

  async listComponents(orgId: string, repo: string): Promise<string[]> {
    this.#assertOpen();
    const components = new Set<string>();
    for (const record of this.#findRepo(orgId, repo)?.all.values() ?? []) {
      if (record.component !== null) components.add(record.component);
    }
    return [...components].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async listRepositories(orgId: string): Promise<RepositorySummary[]> {
    this.#assertOpen();
    const summaries: RepositorySummary[] = [];
    for (const [repo, executions] of this.#executionsByOrg.get(orgId) ?? []) {
      if (executions.latest) {
        summaries.push({ repo, total: executions.count, latest: copy(executions.latest) });
      }
    }
    return summaries.sort((a, b) => compareOldestFirst(b.latest, a.latest));
  }

  async findBaseline(
    orgId: string,
    repo: string,
    branch: string,
    component: string | null = null,
  ): Promise<ExecutionRecord | null> {
    this.#assertOpen();
    const records = this.#findRepo(orgId, repo)?.byBranch.get(branchKey(component, branch));
    const [baseline] =
      records?.newestFirst(1, undefined, (record) => record.outcome !== 'fail') ?? [];
    return this.#copyOrNull(baseline);
  }

  async findBaselineAtCommit(
    orgId: string,
    repo: string,
    branch: string,
    commit: string,
    component: string | null = null,
  ): Promise<ExecutionRecord | null> {
    this.#assertOpen();
    const records = this.#findRepo(orgId, repo)?.byBranch.get(branchKey(component, branch));
    const [baseline] =
      records?.newestFirst(1, undefined, (record) => record.commit === commit) ?? [];
    return this.#copyOrNull(baseline);
  }

  async findLatestExecution(
    orgId: string,
    repo: string,
    branch: string,
    component: string | null = null,
  ): Promise<ExecutionRecord | null> {
    this.#assertOpen();
    const records = this.#findRepo(orgId, repo)?.byBranch.get(branchKey(component, branch));
    const [latest] = records?.newestFirst(1) ?? [];
    return this.#copyOrNull(latest);
  }

  async findRepositorySettings(orgId: string, repo: string): Promise<RepositorySettings | null> {
    this.#assertOpen();
    return this.#copyOrNull(this.#repositorySettings.get(pairKey(orgId, repo)));
  }

  async saveRepositorySettings(settings: RepositorySettings): Promise<void> {
    this.#assertOpen();
    this.#repositorySettings.set(
      pairKey(settings.orgId, settings.repo),
      copy({ ...settings, updatedAt: wholeSeconds(settings.updatedAt) }),
    );
  }

  async claimRepositoryWebUrl(
    orgId: string,
    repo: string,
    webUrl: string,
    at: Date,
  ): Promise<boolean> {
    this.#assertOpen();
    const key = pairKey(orgId, repo);
    const settings = this.#repositorySettings.get(key);
    if (settings?.webUrlSource != null) return false;
    this.#repositorySettings.set(key, {
      orgId,
      repo,
      patchTarget: settings?.patchTarget ?? null,
      webUrl,
      webUrlSource: 'ingest',
      updatedAt: wholeSeconds(at),
    });
    return true;
  }

  async claimWebhookEvent(provider: string, eventId: string, at: Date): Promise<boolean> {
    this.#assertOpen();
    const key = pairKey(provider, eventId);
    if (this.#webhookClaims.has(key)) return false;
    this.#webhookClaims.set(key, new Date(at));
    return true;
  }

  async releaseWebhookEvent(provider: string, eventId: string): Promise<void> {
    this.#assertOpen();
    this.#webhookClaims.delete(pairKey(provider, eventId));
  }

  async putRepositoryLink(link: RepositoryLink): Promise<void> {
    this.#assertOpen();
    this.#repositoryLinks.set(
      pairKey(link.orgId, link.repo),
      copy({
        ...link,
        createdAt: wholeSeconds(link.createdAt),
        updatedAt: wholeSeconds(link.updatedAt),
      }),
    );
  }

  async findRepositoryLink(orgId: string, repo: string): Promise<RepositoryLink | null> {
    this.#assertOpen();
    return this.#copyOrNull(this.#repositoryLinks.get(pairKey(orgId, repo)));
  }

  async deleteRepositoryLink(orgId: string, repo: string): Promise<boolean> {
    this.#assertOpen();
    return this.#repositoryLinks.delete(pairKey(orgId, repo));
  }

  async claimDeliveries(
    owner: string,
    now: Date,
    leaseMs: number,
    limit: number,
  ): Promise<DeliveryRecord[]> {
    this.#assertOpen();
    const at = wholeSeconds(now).getTime();
    const due = [...this.#deliveries.values()]
      .filter(
        (row) =>
          row.state === 'pending' &&
          row.nextAttemptAt.getTime() <= at &&
          (row.leaseUntil === null || row.leaseUntil.getTime() <= at),
      )
      .sort(
        (a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || (a.id < b.id ? -1 : 1),
      )
      .slice(0, limit);
    const until = leaseEnd(now, leaseMs);
    for (const row of due) {
      row.leaseOwner = owner;
      row.leaseUntil = until;
      row.attempts += 1;
      row.updatedAt = wholeSeconds(now);
    }
    return due.map(copy);
  }

  async markDeliverySent(id: string, owner: string, at: Date): Promise<boolean> {
    return this.#settleDelivery(id, owner, (row) => {
      row.state = 'sent';
      row.sentAt = wholeSeconds(at);
      row.updatedAt = wholeSeconds(at);
    });
  }

  async retryDelivery(
    id: string,
    owner: string,
    outcome: DeliveryAttemptOutcome & { nextAttemptAt: Date },
  ): Promise<boolean> {
    return this.#settleDelivery(id, owner, (row) => {
      this.#recordOutcome(row, outcome);
      row.nextAttemptAt = wholeSeconds(outcome.nextAttemptAt);
    });
  }

  async deferDelivery(
    id: string,
    owner: string,
    outcome: DeliveryAttemptOutcome & { nextAttemptAt: Date },
  ): Promise<boolean> {
    return this.#settleDelivery(id, owner, (row) => {
      this.#recordOutcome(row, outcome);
      row.nextAttemptAt = wholeSeconds(outcome.nextAttemptAt);
      row.attempts = Math.max(0, row.attempts - 1);
    });
  }

  async releaseDeliveries(owner: string, at: Date): Promise<number> {
    this.#assertOpen();
    let released = 0;
    for (const row of this.#deliveries.values()) {
      if (row.state !== 'pending' || row.leaseOwner !== owner) continue;
      row.leaseOwner = null;
      row.leaseUntil = null;
      row.attempts = Math.max(0, row.attempts - 1);
      row.updatedAt = wholeSeconds(at);
      released += 1;
    }
    return released;
  }

  async failDelivery(id: string, owner: string, outcome: DeliveryAttemptOutcome): Promise<boolean> {
    return this.#settleDelivery(id, owner, (row) => {
      this.#recordOutcome(row, outcome);
      row.state = 'failed';
    });
  }

  async outboxStats(now: Date): Promise<OutboxStats> {
    this.#assertOpen();
    let pending = 0;
    let failed = 0;
    let oldest: number | null = null;
    for (const row of this.#deliveries.values()) {
      if (row.state === 'failed') failed += 1;
      if (row.state !== 'pending') continue;
      pending += 1;
      if (oldest === null || row.createdAt.getTime() < oldest) oldest = row.createdAt.getTime();
    }
    const age = oldest === null ? 0 : Math.floor((wholeSeconds(now).getTime() - oldest) / 1000);
    return { pending, oldestPendingAgeSeconds: Math.max(0, age), failed };
  }

  async listDeliveryFailures(
    orgId: string,
    repo: string,
    limit: number,
  ): Promise<DeliveryRecord[]> {
    this.#assertOpen();
    return [...this.#deliveries.values()]
      .filter((row) => row.state === 'failed' && row.orgId === orgId && row.repo === repo)
      .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || (a.id < b.id ? 1 : -1))
      .slice(0, limit)
      .map(copy);
  }

  async listRunDeliveries(orgId: string, executionId: string): Promise<DeliveryRecord[]> {
    this.#assertOpen();
    return [...this.#deliveries.values()]
      .filter((row) => row.orgId === orgId && row.executionId === executionId)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map(copy);
  }

  /** Always answers while open: memory never stalls. */
  async ping(): Promise<void> {
    this.#assertOpen();
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('memory store is closed');
  }

  /** Applies `change` to the delivery while `owner` holds it (pending), dropping the lease. */
  #settleDelivery(id: string, owner: string, change: (row: DeliveryRecord) => void): boolean {
    this.#assertOpen();
    const row = this.#deliveries.get(id);
    if (row?.state !== 'pending' || row.leaseOwner !== owner) return false;
    change(row);
    row.leaseOwner = null;
    row.leaseUntil = null;
    return true;
  }

  #recordOutcome(row: DeliveryRecord, outcome: DeliveryAttemptOutcome): void {
    row.lastError = deliveryError(outcome.error);
    row.lastStatus = outcome.status;
    row.updatedAt = wholeSeconds(outcome.at);
  }

  #copyOrNull<T>(value: T | undefined): T | null {
    return value === undefined ? null : copy(value);
  }

  #liveKey(orgId: string, key: string, now: Date): IdempotentExecution | null {
    const stored = this.#idempotencyKeys.get(pairKey(orgId, key));
    if (!stored || stored.expiresAt.getTime() <= now.getTime()) return null;
    return { requestDigest: stored.requestDigest, record: copy(stored.record) };
  }

  #addOrganisation(org: Organisation): void {
    if (this.#organisations.has(org.id)) {
      throw new StoreConflictError(`organisation id already exists: ${org.id}`);
    }
    if (this.#organisationIdBySlug.has(org.slug)) {
      throw new StoreConflictError(`organisation slug already exists: ${org.slug}`);
    }
    this.#organisations.set(org.id, copy(org));
    this.#organisationIdBySlug.set(org.slug, org.id);
  }

  #addToken(token: TokenRecord): void {
    if (this.#tokens.has(token.id)) {
      throw new StoreConflictError(`token id already exists: ${token.id}`);
    }
    this.#tokens.set(token.id, copy(token));
    let orgTokens = this.#tokenIdsByOrg.get(token.orgId);
    if (!orgTokens) {
      orgTokens = new Set();
      this.#tokenIdsByOrg.set(token.orgId, orgTokens);
    }
    orgTokens.add(token.id);
  }

  #findRepo(orgId: string, repo: string): RepoExecutions | undefined {
    return this.#executionsByOrg.get(orgId)?.get(repo);
  }

  #repoFor(orgId: string, repo: string): RepoExecutions {
    let repos = this.#executionsByOrg.get(orgId);
    if (!repos) {
      repos = new Map();
      this.#executionsByOrg.set(orgId, repos);
    }
    let executions = repos.get(repo);
    if (!executions) {
      executions = { all: new SortedExecutions(), byBranch: new Map(), count: 0, latest: null };
      repos.set(repo, executions);
    }
    return executions;
  }
}

/**
 * Creates an empty in-memory {@link Store}: the reference implementation that the
 * conformance suite in `@covgate/testing/vitest` is written against. Data lives only as long
 * as the process; use it for tests, development and single-process demos.
 */
export function createMemoryStore(): Store {
  return new MemoryStore();
}

/** The predicate of a filter; a field left out matches everything. */
function matches(filter: ExecutionFilter): (record: ExecutionRecord) => boolean {
  const { branch, outcome, component } = filter;
  return (record) =>
    (branch === undefined || record.branch === branch) &&
    (outcome === undefined || record.outcome === outcome) &&
    (component === undefined || record.component === component);
}
