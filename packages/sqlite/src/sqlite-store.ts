import {
  type DeliveryAttemptOutcome,
  type DeliveryRecord,
  type ExecutionFilter,
  type ExecutionRecord,
  type GithubOrgLink,
  type IdempotencyKeyClaim,
  type InviteAcceptance,
  type InviteRecord,
  type ListExecutionsQuery,
  type MemberChange,
  type Membership,
  type NewDelivery,
  type Organisation,
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
  wholeSeconds,
} from '@covgate/core';
import {
  createStoreGuard,
  deliveryError,
  deliveryRows,
  EXECUTION_FIELDS,
  executionRow,
  firstCounterRow,
  guardedStore,
  insertKeyedExecution,
  isEmptyFilter,
  leaseEnd,
  liveExecution,
  membershipOf,
  ORGANISATION_FIELDS,
  pickColumns,
  type StoreLogger,
  sessionRow,
  tokenTimestamps,
} from '@covgate/core/storage-kit';
import { createClient } from '@libsql/client';
import {
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  inArray,
  isNotNull,
  isNull,
  lt,
  lte,
  ne,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/libsql';
import { isDuplicateKey, SqliteStoreError } from './failures.js';
import { migrate } from './migrate.js';
import {
  BASELINE_ELIGIBLE,
  deliveries as deliveryTable,
  executionCounters,
  executionFiles,
  executions,
  githubOrgLinks,
  idempotencyKeys,
  invites,
  memberships,
  organisations,
  repositoryLinks,
  repositorySettings,
  sessions,
  signInLinks,
  tokens,
  users,
  webhookEvents,
} from './schema.js';

/** Where the embedded database lives when no `url` is given: `covgate.db` in the working directory. */
export const DEFAULT_SQLITE_URL = 'file:./covgate.db';

/**
 * How long a write waits for another process's lock on the file before failing: the same
 * 2 s bound as every other store call, so a locked file answers 500 instead of hanging.
 */
const BUSY_TIMEOUT_MS = 2000;

/** Options of {@link createSqliteStore}. */
export interface SqliteStoreOptions {
  /** `file:./covgate.db` (default), `file:/var/lib/covgate/covgate.db`, or `:memory:`. */
  url?: string;
  /** Apply the shipped migrations on open (default true). */
  migrate?: boolean;
  /** Receives infrastructure failure lines (default `console`). */
  logger?: StoreLogger;
}

/** The columns of an {@link Organisation} (the personal link and plan time stay inside). */
const organisationColumns = pickColumns(organisations, ORGANISATION_FIELDS);
const executionColumns = pickColumns(executions, EXECUTION_FIELDS);

/** The conditions of an execution filter; a field left out adds none. */
function filterConditions(filter: ExecutionFilter): (SQL | undefined)[] {
  const { branch, outcome, component } = filter;
  return [
    branch === undefined ? undefined : eq(executions.branch, branch),
    outcome === undefined ? undefined : eq(executions.outcome, outcome),
    component === undefined
      ? undefined
      : component === null
        ? isNull(executions.component)
        : eq(executions.component, component),
  ];
}

const newestFirst = [desc(executions.createdAt), desc(executions.id)];

/** True when the row being upserted points at a newer record than the stored counter row. */
const EXCLUDED_IS_NEWER = sql.raw(
  `("latest_id" IS NULL OR excluded."latest_created_at" > "latest_created_at" OR (excluded."latest_created_at" = "latest_created_at" AND excluded."latest_id" > "latest_id"))`,
);

/**
 * Opens the embedded {@link Store}: one SQLite file through libsql's prebuilt engine, no
 * server, no compiler. The file is put in WAL mode with a busy timeout, and the shipped
 * migrations are applied unless `migrate: false`.
 *
 * Every statement runs synchronously inside libsql, so calls through one store never
 * interleave inside a statement; multi-statement writes go in one `batch` (a single
 * transaction), never in an interactive transaction, which libsql would run on a second
 * connection (and, for `:memory:`, a second, empty database).
 */
export async function createSqliteStore(options: SqliteStoreOptions = {}): Promise<Store> {
  const logger = options.logger ?? console;
  const client = createClient({ url: options.url ?? DEFAULT_SQLITE_URL });
  const db = drizzle(client);
  try {
    await client.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    await client.execute('PRAGMA journal_mode = WAL');
    if (options.migrate !== false) await migrate(db);
  } catch (error) {
    client.close();
    throw error;
  }

  // No deadline: libsql runs each statement synchronously, and the busy timeout bounds the
  // only wait, a lock held by another process.
  const guard = createStoreGuard({
    logger,
    isDuplicateKey,
    failure: (component, operation, code) => new SqliteStoreError(component, operation, code),
  });

  const first = async <T>(rows: Promise<T[]>): Promise<T | null> => (await rows)[0] ?? null;
  const findMembership = async (orgId: string, userId: string) => {
    const row = await first(prepared.member.all({ orgId, userId }));
    return row === null ? null : membershipOf(row);
  };

  const findOrganisation = (where: SQL): Promise<Organisation | null> =>
    first(db.select(organisationColumns).from(organisations).where(where).limit(1));

  const findUser = (where: SQL | undefined) => first(db.select().from(users).where(where).limit(1));

  // The lookups of every authenticated request and every list, built once: drizzle spends as
  // long building a query's SQL as libsql spends running it (about 80 µs each here).
  const byId = sql.placeholder('id');
  const prepared = {
    tokenById: db.select().from(tokens).where(eq(tokens.id, byId)).limit(1).prepare(),
    organisationById: db
      .select(organisationColumns)
      .from(organisations)
      .where(eq(organisations.id, byId))
      .limit(1)
      .prepare(),
    organisationBySlug: db
      .select(organisationColumns)
      .from(organisations)
      .where(eq(organisations.slug, sql.placeholder('slug')))
      .limit(1)
      .prepare(),
    sessionByTokenHash: db
      .select()
      .from(sessions)
      .where(eq(sessions.tokenHash, sql.placeholder('tokenHash')))
      .limit(1)
      .prepare(),
    sessionById: db.select().from(sessions).where(eq(sessions.id, byId)).limit(1).prepare(),
    userById: db.select().from(users).where(eq(users.id, byId)).limit(1).prepare(),
    member: db
      .select()
      .from(memberships)
      .where(
        and(
          eq(memberships.orgId, sql.placeholder('orgId')),
          eq(memberships.userId, sql.placeholder('userId')),
        ),
      )
      .limit(1)
      .prepare(),
    executionTotal: db
      .select({ total: executionCounters.total })
      .from(executionCounters)
      .where(
        and(
          eq(executionCounters.orgId, sql.placeholder('orgId')),
          eq(executionCounters.repo, sql.placeholder('repo')),
        ),
      )
      .prepare(),
    firstExecutions: db
      .select(executionColumns)
      .from(executions)
      .where(
        and(
          eq(executions.orgId, sql.placeholder('orgId')),
          eq(executions.repo, sql.placeholder('repo')),
        ),
      )
      .orderBy(...newestFirst)
      .limit(sql.placeholder('limit'))
      .prepare(),
  };

  const findToken = (id: string) => first(prepared.tokenById.all({ id }));

  /**
   * The execution's row, its per-file list when it has one, and its counter update, to run in
   * one batch with what the caller adds.
   */
  const executionWrites = (
    record: ExecutionRecord,
    files: Uint8Array | null | undefined,
    deliveries: readonly NewDelivery[] | undefined,
  ) => {
    const outbox = deliveryRows(record, deliveries);
    const writes = [
      db.insert(executions).values(executionRow(record)),
      db
        .insert(executionCounters)
        .values(firstCounterRow(record))
        .onConflictDoUpdate({
          target: [executionCounters.orgId, executionCounters.repo],
          // SQLite evaluates every SET expression against the row before the update.
          set: {
            total: sql`"total" + 1`,
            latestId: sql`CASE WHEN ${EXCLUDED_IS_NEWER} THEN excluded."latest_id" ELSE "latest_id" END`,
            latestCreatedAt: sql`CASE WHEN ${EXCLUDED_IS_NEWER} THEN excluded."latest_created_at" ELSE "latest_created_at" END`,
          },
        }),
      ...(outbox.length === 0 ? [] : [db.insert(deliveryTable).values(outbox)]),
    ] as const;
    if (!files) return writes;
    const data = Buffer.from(files.buffer, files.byteOffset, files.byteLength);
    return [
      ...writes,
      db.insert(executionFiles).values({ executionId: record.id, orgId: record.orgId, data }),
    ] as const;
  };

  /**
   * Applies `changes` to the delivery while `owner` holds it (pending), dropping the lease:
   * one conditional update, so a sender whose lease was taken over changes nothing.
   */
  const settleDelivery = async (
    id: string,
    owner: string,
    changes: Partial<typeof deliveryTable.$inferInsert>,
  ): Promise<boolean> => {
    const result = await db
      .update(deliveryTable)
      .set({ ...changes, leaseOwner: null, leaseUntil: null })
      .where(
        and(
          eq(deliveryTable.id, id),
          eq(deliveryTable.state, 'pending'),
          eq(deliveryTable.leaseOwner, owner),
        ),
      );
    return result.rowsAffected > 0;
  };

  /** The columns an unsuccessful attempt writes. */
  const outcomeColumns = (outcome: DeliveryAttemptOutcome) => ({
    lastError: deliveryError(outcome.error),
    lastStatus: outcome.status,
    updatedAt: wholeSeconds(outcome.at),
  });

  /** An organisation's key, live or dead, with the execution it points at. */
  const findKey = (orgId: string, key: string) =>
    first(
      db
        .select({
          requestDigest: idempotencyKeys.requestDigest,
          expiresAt: idempotencyKeys.expiresAt,
          record: executionColumns,
        })
        .from(idempotencyKeys)
        .innerJoin(executions, eq(executions.id, idempotencyKeys.executionId))
        .where(and(eq(idempotencyKeys.orgId, orgId), eq(idempotencyKeys.key, key)))
        .limit(1),
    );

  /** The newest record of a component's branch that also meets `condition`. */
  const latestOnBranch = (
    orgId: string,
    repo: string,
    branch: string,
    component: string | null | undefined,
    condition: SQL | undefined,
  ) =>
    first(
      db
        .select(executionColumns)
        .from(executions)
        .where(
          and(
            eq(executions.orgId, orgId),
            eq(executions.repo, repo),
            component == null ? isNull(executions.component) : eq(executions.component, component),
            eq(executions.branch, branch),
            condition,
          ),
        )
        .orderBy(...newestFirst)
        .limit(1),
    );

  /** The membership's row. */
  const isMember = (orgId: string, userId: string) =>
    and(eq(memberships.orgId, orgId), eq(memberships.userId, userId));
  /** True while the organisation has an owner other than `userId`, read in the same statement. */
  const anotherOwner = (orgId: string, userId: string) =>
    sql`EXISTS (SELECT 1 FROM ${memberships} AS "other" WHERE "other"."org_id" = ${orgId} AND "other"."role" = 'owner' AND "other"."user_id" <> ${userId})`;
  /** `done` when a write matched the member; else `unknown` or `last-owner`, read afterwards. */
  const memberChange = async (
    rowsAffected: number,
    orgId: string,
    userId: string,
  ): Promise<MemberChange> => {
    if (rowsAffected > 0) return 'done';
    return (await first(prepared.member.all({ orgId, userId }))) ? 'last-owner' : 'unknown';
  };

  const findInvite = (where: SQL) => first(db.select().from(invites).where(where).limit(1));

  /** An invite's row with its instants truncated to whole seconds. */
  const inviteRow = (invite: InviteRecord): InviteRecord => ({
    ...invite,
    createdAt: wholeSeconds(invite.createdAt),
    expiresAt: wholeSeconds(invite.expiresAt),
    acceptedAt: invite.acceptedAt === null ? null : wholeSeconds(invite.acceptedAt),
    revokedAt: invite.revokedAt === null ? null : wholeSeconds(invite.revokedAt),
  });

  return guardedStore(guard, {
    createOrganisation: async (org: Organisation) => {
      await db.insert(organisations).values({ ...org, createdAt: wholeSeconds(org.createdAt) });
    },

    findOrganisationById: (id: string) => first(prepared.organisationById.all({ id })),

    findOrganisationBySlug: (slug: string) => first(prepared.organisationBySlug.all({ slug })),

    setOrganisationPlan: async (id: string, plan: Plan) => {
      const result = await db.update(organisations).set({ plan }).where(eq(organisations.id, id));
      return result.rowsAffected > 0;
    },

    applyPlanChange: async (id: string, plan: Plan, eventAt: Date): Promise<PlanChangeResult> => {
      const at = wholeSeconds(eventAt);
      const result = await db
        .update(organisations)
        .set({ plan, planChangedAt: at })
        .where(
          and(
            eq(organisations.id, id),
            or(isNull(organisations.planChangedAt), lte(organisations.planChangedAt, at)),
          ),
        );
      if (result.rowsAffected > 0) return 'applied';
      return (await first(prepared.organisationById.all({ id }))) ? 'stale' : 'unknown';
    },

    createPersonalOrganisation: async (org: Organisation, userId: string) => {
      await db
        .insert(organisations)
        .values({ ...org, createdAt: wholeSeconds(org.createdAt), personalUserId: userId });
    },

    findPersonalOrganisation: (userId: string) =>
      findOrganisation(eq(organisations.personalUserId, userId)),

    findOrCreateUser: async (candidate: User) => {
      await db
        .insert(users)
        .values({ ...candidate, createdAt: wholeSeconds(candidate.createdAt) })
        .onConflictDoNothing({ target: [users.provider, users.externalId] });
      const stored = await findUser(
        and(eq(users.provider, candidate.provider), eq(users.externalId, candidate.externalId)),
      );
      if (stored === null) throw new StoreConflictError('user id already exists');
      return stored;
    },

    findUserById: (id: string) => first(prepared.userById.all({ id })),

    insertToken: async (token: TokenRecord) => {
      await db.insert(tokens).values(tokenTimestamps(token));
    },

    findTokenById: (id: string) => findToken(id),

    listTokensByOrg: (orgId: string) =>
      db
        .select()
        .from(tokens)
        .where(eq(tokens.orgId, orgId))
        .orderBy(desc(tokens.createdAt), desc(tokens.id)),

    updateToken: async (id: string, patch: { name?: string; scopes?: string[] }) => {
      const changes = {
        ...(patch.name === undefined ? {} : { name: patch.name }),
        ...(patch.scopes === undefined ? {} : { scopes: patch.scopes }),
      };
      if (Object.keys(changes).length > 0) {
        await db.update(tokens).set(changes).where(eq(tokens.id, id));
      }
      return findToken(id);
    },

    revokeToken: async (id: string) => {
      const result = await db.update(tokens).set({ status: 'revoked' }).where(eq(tokens.id, id));
      return result.rowsAffected > 0;
    },

    rotateToken: async (oldId: string, replacement: TokenRecord, gracePeriodEndsAt: Date) => {
      const isActive = and(eq(tokens.id, oldId), eq(tokens.status, 'active'));
      const row = tokenTimestamps(replacement);
      // One transaction: insert the replacement only while the old token is active, then
      // mark the old one rotating. Atomic across connections and processes alike.
      const [inserted] = await db.batch([
        db.insert(tokens).select(
          db
            .select({
              id: sql`${row.id}`.as('id'),
              orgId: sql`${row.orgId}`.as('org_id'),
              name: sql`${row.name}`.as('name'),
              scopes: sql`${JSON.stringify(row.scopes)}`.as('scopes'),
              agentType: sql`${row.agentType}`.as('agent_type'),
              hash: sql`${row.hash}`.as('hash'),
              status: sql`${row.status}`.as('status'),
              createdAt: sql`${row.createdAt.getTime()}`.as('created_at'),
              lastUsedAt: sql`${row.lastUsedAt?.getTime() ?? null}`.as('last_used_at'),
              gracePeriodEndsAt: sql`${row.gracePeriodEndsAt?.getTime() ?? null}`.as(
                'grace_period_ends_at',
              ),
            })
            .from(tokens)
            .where(isActive),
        ),
        db
          .update(tokens)
          .set({ status: 'rotating', gracePeriodEndsAt: wholeSeconds(gracePeriodEndsAt) })
          .where(isActive),
      ]);
      return inserted.rowsAffected === 1;
    },

    touchToken: async (id: string, at: Date) => {
      await db
        .update(tokens)
        .set({ lastUsedAt: wholeSeconds(at) })
        .where(eq(tokens.id, id));
    },

    replaceTokenHash: async (id: string, expectedHash: string, newHash: string) => {
      const result = await db
        .update(tokens)
        .set({ hash: newHash })
        .where(and(eq(tokens.id, id), eq(tokens.hash, expectedHash)));
      return result.rowsAffected > 0;
    },

    insertSession: async (session: SessionRecord) => {
      await db.insert(sessions).values(sessionRow(session));
    },

    findSessionByTokenHash: (tokenHash: string) =>
      first(prepared.sessionByTokenHash.all({ tokenHash })),

    findSessionById: (id: string) => first(prepared.sessionById.all({ id })),

    deleteSession: async (id: string) => {
      const result = await db.delete(sessions).where(eq(sessions.id, id));
      return result.rowsAffected > 0;
    },

    setSessionOrganisation: async (id: string, orgId: string) => {
      const result = await db.update(sessions).set({ orgId }).where(eq(sessions.id, id));
      return result.rowsAffected > 0;
    },

    addMember: async (member: Membership) => {
      const result = await db
        .insert(memberships)
        .values({ ...member, createdAt: wholeSeconds(member.createdAt) })
        .onConflictDoNothing();
      return result.rowsAffected === 1;
    },

    findMember: (orgId: string, userId: string) => findMembership(orgId, userId),

    listMembers: async (orgId: string) =>
      (
        await db
          .select({
            orgId: memberships.orgId,
            userId: memberships.userId,
            role: memberships.role,
            createdAt: memberships.createdAt,
            source: memberships.source,
            login: users.login,
          })
          .from(memberships)
          .leftJoin(users, eq(users.id, memberships.userId))
          .where(eq(memberships.orgId, orgId))
          .orderBy(asc(memberships.createdAt), asc(memberships.userId))
      ).map(membershipOf),

    listUserOrganisations: (userId: string) =>
      db
        .select({ organisation: organisationColumns, role: memberships.role })
        .from(memberships)
        .innerJoin(organisations, eq(organisations.id, memberships.orgId))
        .where(eq(memberships.userId, userId))
        .orderBy(asc(organisations.slug)),

    // One statement each: SQLite takes the write lock before it reads, so the owner count
    // and the write cannot be split by another connection's change.
    changeMemberRole: async (orgId: string, userId: string, role: Role) => {
      const result = await db
        .update(memberships)
        .set({ role })
        .where(
          and(
            isMember(orgId, userId),
            role === 'owner'
              ? undefined
              : or(ne(memberships.role, 'owner'), anotherOwner(orgId, userId)),
          ),
        );
      return memberChange(result.rowsAffected, orgId, userId);
    },

    removeMember: async (orgId: string, userId: string) => {
      const result = await db
        .delete(memberships)
        .where(
          and(
            isMember(orgId, userId),
            or(ne(memberships.role, 'owner'), anotherOwner(orgId, userId)),
          ),
        );
      return memberChange(result.rowsAffected, orgId, userId);
    },

    // One conditional upsert: the unique index on the GitHub organisation refuses a second
    // organisation, so two owners linking one GitHub organisation at once cannot both win.
    linkGithubOrg: async (link: GithubOrgLink) => {
      try {
        await db
          .insert(githubOrgLinks)
          .values({ ...link, linkedAt: wholeSeconds(link.linkedAt) })
          .onConflictDoUpdate({
            target: githubOrgLinks.orgId,
            set: {
              githubOrg: link.githubOrg,
              linkedBy: link.linkedBy,
              linkedAt: wholeSeconds(link.linkedAt),
            },
          });
        return 'done' as const;
      } catch (error) {
        if (isDuplicateKey(error)) return 'taken' as const;
        throw error;
      }
    },

    findGithubOrgLink: (orgId: string) =>
      first(db.select().from(githubOrgLinks).where(eq(githubOrgLinks.orgId, orgId)).limit(1)),

    listGithubOrgLinks: () =>
      db.select().from(githubOrgLinks).orderBy(asc(githubOrgLinks.githubOrg)),

    unlinkGithubOrg: async (orgId: string) => {
      const result = await db.delete(githubOrgLinks).where(eq(githubOrgLinks.orgId, orgId));
      return result.rowsAffected > 0;
    },

    insertInvite: async (invite: InviteRecord) => {
      await db.insert(invites).values(inviteRow(invite));
    },

    findInviteById: (id: string) => findInvite(eq(invites.id, id)),

    findInviteByTokenHash: (tokenHash: string) => findInvite(eq(invites.tokenHash, tokenHash)),

    listInvites: (orgId: string) =>
      db
        .select()
        .from(invites)
        .where(eq(invites.orgId, orgId))
        .orderBy(desc(invites.createdAt), desc(invites.id)),

    revokeInvite: async (id: string, at: Date) => {
      const result = await db
        .update(invites)
        .set({ revokedAt: wholeSeconds(at) })
        .where(and(eq(invites.id, id), isNull(invites.acceptedAt), isNull(invites.revokedAt)));
      return result.rowsAffected > 0;
    },

    acceptInvite: async (
      tokenHash: string,
      userId: string,
      at: Date,
    ): Promise<InviteAcceptance> => {
      const joinedAt = wholeSeconds(at);
      const open = and(
        eq(invites.tokenHash, tokenHash),
        isNull(invites.acceptedAt),
        isNull(invites.revokedAt),
        gt(invites.expiresAt, at),
      );
      // One transaction: the invite is marked accepted only while open and while the user
      // is not a member, and the membership is added only when that update changed a row
      // (`changes()` of the statement before it).
      const [accepted] = await db.batch([
        db
          .update(invites)
          .set({ acceptedBy: userId, acceptedAt: joinedAt })
          .where(
            and(
              open,
              sql`NOT EXISTS (SELECT 1 FROM ${memberships} WHERE ${memberships.orgId} = ${invites.orgId} AND ${memberships.userId} = ${userId})`,
            ),
          ),
        db.insert(memberships).select(
          db
            .select({
              orgId: sql`${invites.orgId}`.as('org_id'),
              userId: sql`${userId}`.as('user_id'),
              role: sql`${invites.role}`.as('role'),
              createdAt: sql`${joinedAt.getTime()}`.as('created_at'),
              source: sql`NULL`.as('source'),
            })
            .from(invites)
            .where(and(eq(invites.tokenHash, tokenHash), sql`changes() = 1`)),
        ),
      ]);
      const invite = await findInvite(eq(invites.tokenHash, tokenHash));
      if (invite === null) return { outcome: 'refused' };
      const member = await findMembership(invite.orgId, userId);
      if (accepted.rowsAffected === 1 && member) return { outcome: 'accepted', invite, member };
      const stillOpen =
        invite.acceptedAt === null &&
        invite.revokedAt === null &&
        invite.expiresAt.getTime() > at.getTime();
      return stillOpen && member
        ? { outcome: 'already-member', invite, member }
        : { outcome: 'refused' };
    },

    insertSignInLink: async (link: SignInLinkRecord) => {
      await db.insert(signInLinks).values({
        ...link,
        createdAt: wholeSeconds(link.createdAt),
        expiresAt: wholeSeconds(link.expiresAt),
        usedAt: link.usedAt === null ? null : wholeSeconds(link.usedAt),
      });
    },

    useSignInLink: async (tokenHash: string, at: Date) => {
      // One statement: the condition and the write cannot be split by another caller.
      const [used] = await db
        .update(signInLinks)
        .set({ usedAt: wholeSeconds(at) })
        .where(
          and(
            eq(signInLinks.tokenHash, tokenHash),
            isNull(signInLinks.usedAt),
            gt(signInLinks.expiresAt, at),
          ),
        )
        .returning();
      return used ?? null;
    },

    insertExecution: async (
      record: ExecutionRecord,
      files?: Uint8Array | null,
      deliveries?: readonly NewDelivery[],
    ) => {
      await db.batch(executionWrites(record, files, deliveries));
    },

    findExecution: (orgId: string, id: string) =>
      first(
        db
          .select(executionColumns)
          .from(executions)
          .where(and(eq(executions.id, id), eq(executions.orgId, orgId)))
          .limit(1),
      ),

    findExecutionFiles: async (orgId: string, id: string) => {
      const row = await first(
        db
          .select({ data: executionFiles.data })
          .from(executionFiles)
          .where(and(eq(executionFiles.executionId, id), eq(executionFiles.orgId, orgId)))
          .limit(1),
      );
      return row ? new Uint8Array(row.data) : null;
    },

    insertKeyedExecution: (
      record: ExecutionRecord,
      claim: IdempotencyKeyClaim,
      files?: Uint8Array | null,
      deliveries?: readonly NewDelivery[],
    ) =>
      insertKeyedExecution(claim, {
        isDuplicateKey,
        // One batch, one transaction: the key, the execution and its counter, or nothing.
        insert: async () => {
          await db.batch([
            db.insert(idempotencyKeys).values({
              orgId: record.orgId,
              key: claim.key,
              requestDigest: claim.requestDigest,
              executionId: record.id,
              createdAt: wholeSeconds(claim.createdAt),
              expiresAt: wholeSeconds(claim.expiresAt),
            }),
            ...executionWrites(record, files, deliveries),
          ]);
        },
        findKey: () => findKey(record.orgId, claim.key),
        deleteDeadKey: async () => {
          await db
            .delete(idempotencyKeys)
            .where(
              and(
                eq(idempotencyKeys.orgId, record.orgId),
                eq(idempotencyKeys.key, claim.key),
                lte(idempotencyKeys.expiresAt, wholeSeconds(claim.createdAt)),
              ),
            );
        },
      }),

    findIdempotentExecution: async (orgId: string, key: string, now: Date) =>
      liveExecution(await findKey(orgId, key), now),

    deleteExpiredIdempotencyKeys: async (now: Date, limit: number) => {
      // SQLite's DELETE takes no LIMIT unless compiled with it: pick the rows by rowid.
      const dead = db
        .select({ rowid: sql`rowid` })
        .from(idempotencyKeys)
        .where(lte(idempotencyKeys.expiresAt, wholeSeconds(now)))
        .orderBy(idempotencyKeys.expiresAt)
        .limit(limit);
      const result = await db.delete(idempotencyKeys).where(inArray(sql`rowid`, dead));
      return result.rowsAffected;
    },

    listExecutions: (query: ListExecutionsQuery) => {
      const { after } = query;
      if (after === undefined && isEmptyFilter(query)) {
        return prepared.firstExecutions.all({
          orgId: query.orgId,
          repo: query.repo,
          limit: query.limit,
        });
      }
      return db
        .select(executionColumns)
        .from(executions)
        .where(
          and(
            eq(executions.orgId, query.orgId),
            eq(executions.repo, query.repo),
            ...filterConditions(query),
            after === undefined
              ? undefined
              : or(
                  lt(executions.createdAt, after.createdAt),
                  and(eq(executions.createdAt, after.createdAt), lt(executions.id, after.id)),
                ),
          ),
        )
        .orderBy(...newestFirst)
        .limit(query.limit);
    },

    countExecutions: async (orgId: string, repo: string, filter?: ExecutionFilter) => {
      if (filter === undefined || isEmptyFilter(filter)) {
        const row = await first(prepared.executionTotal.all({ orgId, repo }));
        return row?.total ?? 0;
      }
      const row = await first(
        db
          .select({ total: count() })
          .from(executions)
          .where(
            and(
              eq(executions.orgId, orgId),
              eq(executions.repo, repo),
              ...filterConditions(filter),
            ),
          ),
      );
      return row?.total ?? 0;
    },

    findOldestExecution: (orgId: string, repo: string, filter: ExecutionFilter) =>
      first(
        db
          .select(executionColumns)
          .from(executions)
          .where(
            and(
              eq(executions.orgId, orgId),
              eq(executions.repo, repo),
              ...filterConditions(filter),
            ),
          )
          .orderBy(asc(executions.createdAt), asc(executions.id))
          .limit(1),
      ),

    listComponents: async (orgId: string, repo: string) => {
      const rows = await db
        .selectDistinct({ component: executions.component })
        .from(executions)
        .where(
          and(
            eq(executions.orgId, orgId),
            eq(executions.repo, repo),
            isNotNull(executions.component),
          ),
        )
        .orderBy(asc(executions.component));
      return rows.map((row) => row.component as string);
    },

    listRepositories: async (orgId: string): Promise<RepositorySummary[]> => {
      const rows = await db
        .select({ total: executionCounters.total, latest: executionColumns })
        .from(executionCounters)
        .innerJoin(executions, eq(executions.id, executionCounters.latestId))
        .where(eq(executionCounters.orgId, orgId))
        .orderBy(desc(executionCounters.latestCreatedAt), desc(executionCounters.latestId));
      return rows.map(({ total, latest }) => ({ repo: latest.repo, total, latest }));
    },

    findBaseline: (orgId: string, repo: string, branch: string, component?: string | null) =>
      // Word for word the partial index's condition, so SQLite can use that index.
      latestOnBranch(orgId, repo, branch, component, BASELINE_ELIGIBLE),

    findBaselineAtCommit: (
      orgId: string,
      repo: string,
      branch: string,
      commit: string,
      component?: string | null,
    ) => latestOnBranch(orgId, repo, branch, component, eq(executions.commit, commit)),

    findLatestExecution: (orgId: string, repo: string, branch: string, component?: string | null) =>
      latestOnBranch(orgId, repo, branch, component, undefined),

    findRepositorySettings: async (
      orgId: string,
      repo: string,
    ): Promise<RepositorySettings | null> =>
      first(
        db
          .select()
          .from(repositorySettings)
          .where(and(eq(repositorySettings.orgId, orgId), eq(repositorySettings.repo, repo)))
          .limit(1),
      ),

    saveRepositorySettings: async (settings: RepositorySettings) => {
      const row = { ...settings, updatedAt: wholeSeconds(settings.updatedAt) };
      await db
        .insert(repositorySettings)
        .values(row)
        .onConflictDoUpdate({
          target: [repositorySettings.orgId, repositorySettings.repo],
          set: {
            patchTarget: row.patchTarget,
            webUrl: row.webUrl,
            webUrlSource: row.webUrlSource,
            updatedAt: row.updatedAt,
          },
        });
    },

    claimRepositoryWebUrl: async (orgId: string, repo: string, webUrl: string, at: Date) => {
      const updatedAt = wholeSeconds(at);
      // One statement: the row is created, or updated only while no one set the URL.
      const result = await db
        .insert(repositorySettings)
        .values({ orgId, repo, patchTarget: null, webUrl, webUrlSource: 'ingest', updatedAt })
        .onConflictDoUpdate({
          target: [repositorySettings.orgId, repositorySettings.repo],
          set: { webUrl, webUrlSource: 'ingest', updatedAt },
          setWhere: isNull(repositorySettings.webUrlSource),
        });
      return result.rowsAffected > 0;
    },

    putRepositoryLink: async (link: RepositoryLink) => {
      const row = {
        ...link,
        createdAt: wholeSeconds(link.createdAt),
        updatedAt: wholeSeconds(link.updatedAt),
      };
      const { orgId: _org, repo: _repo, ...changes } = row;
      await db
        .insert(repositoryLinks)
        .values(row)
        .onConflictDoUpdate({
          target: [repositoryLinks.orgId, repositoryLinks.repo],
          set: changes,
        });
    },

    findRepositoryLink: (orgId: string, repo: string) =>
      first(
        db
          .select()
          .from(repositoryLinks)
          .where(and(eq(repositoryLinks.orgId, orgId), eq(repositoryLinks.repo, repo)))
          .limit(1),
      ),

    deleteRepositoryLink: async (orgId: string, repo: string) => {
      const result = await db
        .delete(repositoryLinks)
        .where(and(eq(repositoryLinks.orgId, orgId), eq(repositoryLinks.repo, repo)));
      return result.rowsAffected > 0;
    },

    // One statement: SQLite takes the write lock before it reads, so two processes claiming
    // at once cannot pick the same delivery.
    claimDeliveries: async (
      owner: string,
      now: Date,
      leaseMs: number,
      limit: number,
    ): Promise<DeliveryRecord[]> => {
      const at = wholeSeconds(now);
      const due = db
        .select({ id: deliveryTable.id })
        .from(deliveryTable)
        .where(
          and(
            eq(deliveryTable.state, 'pending'),
            lte(deliveryTable.nextAttemptAt, at),
            or(isNull(deliveryTable.leaseUntil), lte(deliveryTable.leaseUntil, at)),
          ),
        )
        .orderBy(asc(deliveryTable.nextAttemptAt), asc(deliveryTable.id))
        .limit(limit);
      const claimed = await db
        .update(deliveryTable)
        .set({
          leaseOwner: owner,
          leaseUntil: leaseEnd(now, leaseMs),
          attempts: sql`${deliveryTable.attempts} + 1`,
          updatedAt: at,
        })
        .where(inArray(deliveryTable.id, due))
        .returning();
      return claimed.sort(
        (a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || (a.id < b.id ? -1 : 1),
      );
    },

    markDeliverySent: (id: string, owner: string, at: Date) =>
      settleDelivery(id, owner, {
        state: 'sent',
        sentAt: wholeSeconds(at),
        updatedAt: wholeSeconds(at),
      }),

    retryDelivery: (
      id: string,
      owner: string,
      outcome: DeliveryAttemptOutcome & { nextAttemptAt: Date },
    ) =>
      settleDelivery(id, owner, {
        ...outcomeColumns(outcome),
        nextAttemptAt: wholeSeconds(outcome.nextAttemptAt),
      }),

    failDelivery: (id: string, owner: string, outcome: DeliveryAttemptOutcome) =>
      settleDelivery(id, owner, { ...outcomeColumns(outcome), state: 'failed' }),

    outboxStats: async (now: Date) => {
      const rows = await db
        .select({
          state: deliveryTable.state,
          total: sql<number>`count(*)`,
          oldest: sql<number | null>`min(${deliveryTable.createdAt})`,
        })
        .from(deliveryTable)
        .where(inArray(deliveryTable.state, ['pending', 'failed']))
        .groupBy(deliveryTable.state);
      const pending = rows.find((row) => row.state === 'pending');
      const failed = rows.find((row) => row.state === 'failed');
      const oldest = pending?.oldest == null ? null : Number(pending.oldest);
      return {
        pending: Number(pending?.total ?? 0),
        oldestPendingAgeSeconds:
          oldest === null
            ? 0
            : Math.max(0, Math.floor((wholeSeconds(now).getTime() - oldest) / 1000)),
        failed: Number(failed?.total ?? 0),
      };
    },

    listDeliveryFailures: (orgId: string, repo: string, limit: number) =>
      db
        .select()
        .from(deliveryTable)
        .where(
          and(
            eq(deliveryTable.orgId, orgId),
            eq(deliveryTable.repo, repo),
            eq(deliveryTable.state, 'failed'),
          ),
        )
        .orderBy(desc(deliveryTable.updatedAt), desc(deliveryTable.id))
        .limit(limit),

    listRunDeliveries: (orgId: string, executionId: string) =>
      db
        .select()
        .from(deliveryTable)
        .where(and(eq(deliveryTable.orgId, orgId), eq(deliveryTable.executionId, executionId)))
        .orderBy(asc(deliveryTable.id)),

    claimWebhookEvent: async (provider: string, eventId: string, at: Date) => {
      const result = await db
        .insert(webhookEvents)
        .values({ provider, eventId, claimedAt: wholeSeconds(at) })
        .onConflictDoNothing();
      return result.rowsAffected === 1;
    },

    releaseWebhookEvent: async (provider: string, eventId: string) => {
      await db
        .delete(webhookEvents)
        .where(and(eq(webhookEvents.provider, provider), eq(webhookEvents.eventId, eventId)));
    },

    ping: async () => {
      await client.execute('SELECT 1');
    },

    close: async () => {
      client.close();
    },
  });
}
