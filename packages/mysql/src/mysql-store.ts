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
  DEFAULT_DEADLINE_MS,
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
  withDeadline,
} from '@covgate/core/storage-kit';
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
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import { drizzle, type MySql2Database } from 'drizzle-orm/mysql2';
import { createPool, type Pool, type ResultSetHeader, type SslOptions } from 'mysql2/promise';
import { parseMySqlUrl } from './connection-url.js';
import { retryDeadlocks } from './deadlock-retry.js';
import { isDuplicateKey, MySqlStoreError } from './failures.js';
import { poolOptionsFor } from './pool-options.js';
import { toTokenRecord, toTokenRow } from './rows.js';
import {
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

/** Options of {@link createMySqlStore}: a `url` (a pool is made) or your own `pool`. */
export interface MySqlStoreOptions {
  /** `mysql://user:password@host:3306/database?sslmode=verify-full`, see `parseMySqlUrl`. */
  url?: string;
  /**
   * A mysql2 promise pool you own; `close()` leaves it open. Keep mysql2's default
   * `FOUND_ROWS` flag: updates must report matched rows, not changed rows.
   */
  pool?: Pool;
  /** Size of the pool made from `url` (default 10). */
  poolSize?: number;
  /** TLS options for the pool made from `url` (`ca`, `cert`, `key`...). */
  ssl?: SslOptions;
  /** Receives infrastructure failure lines (default `console`). */
  logger?: StoreLogger;
  /**
   * Milliseconds one store call may take, waiting for a pooled connection, connecting and
   * querying included (default 2000); past it the call fails with code `ETIMEDOUT`.
   */
  deadlineMs?: number;
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
const VALUES_ARE_NEWER = sql.raw(
  '(`latest_id` IS NULL OR `latest_created_at` IS NULL OR VALUES(`latest_created_at`) > `latest_created_at` OR (VALUES(`latest_created_at`) = `latest_created_at` AND VALUES(`latest_id`) > `latest_id`))',
);

/** The transaction `db.transaction` gives its callback. */
type Transaction = Parameters<Parameters<MySql2Database['transaction']>[0]>[0];

/** Writes a key's row, or an execution's rows, in a transaction or alone. */
type Writer = Pick<MySql2Database, 'insert'>;

/** Rows changed (or matched: mysql2 sets FOUND_ROWS) by a write. */
const affected = (result: [ResultSetHeader, unknown]): number => result[0].affectedRows;

/**
 * Creates the MySQL/MariaDB {@link Store} over a mysql2 connection pool. The schema must
 * exist: run `migrate({ url })` first. Duplicate keys throw `StoreConflictError`; any other
 * failure is logged through `logger` with its component prefix (secrets redacted) and
 * rethrown as a {@link MySqlStoreError} whose message names no host, query or credential.
 */
export function createMySqlStore(options: MySqlStoreOptions): Store {
  const logger = options.logger ?? console;
  const { pool, owned, secrets } = openPool(options);
  const db = drizzle(pool);
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const guard = createStoreGuard({
    logger,
    isDuplicateKey,
    failure: (component, operation, code) => new MySqlStoreError(component, operation, code),
    secrets,
    deadlineMs,
  });

  const first = async <T>(rows: PromiseLike<T[]>): Promise<T | null> => (await rows)[0] ?? null;

  const findOrganisation = (where: SQL | undefined): Promise<Organisation | null> =>
    first(db.select(organisationColumns).from(organisations).where(where).limit(1));

  const findUser = (where: SQL | undefined) => first(db.select().from(users).where(where).limit(1));

  // The lookups of every authenticated request and every list, built once as the SQLite
  // store's are: drizzle then skips building their SQL on each call. They still run through
  // the pool's `query`, as every other statement, so a failure reaches the guard alike.
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

  const findToken = async (id: string) => {
    const row = await first(prepared.tokenById.execute({ id }));
    return row ? toTokenRecord(row) : null;
  };

  /**
   * The execution's row, its per-file list when it has one, and its counter update: one
   * transaction with what the caller adds.
   */
  const writeExecution = async (
    tx: Writer,
    record: ExecutionRecord,
    files: Uint8Array | null | undefined,
    deliveries: readonly NewDelivery[] | undefined,
  ): Promise<void> => {
    await tx.insert(executions).values(executionRow(record));
    const outbox = deliveryRows(record, deliveries);
    if (outbox.length > 0) await tx.insert(deliveryTable).values(outbox);
    if (files) {
      const data = Buffer.from(files.buffer, files.byteOffset, files.byteLength);
      await tx.insert(executionFiles).values({ executionId: record.id, orgId: record.orgId, data });
    }
    await tx
      .insert(executionCounters)
      .values(firstCounterRow(record))
      .onDuplicateKeyUpdate({
        // MySQL applies these left to right, each seeing the previous ones: the id
        // is decided against the old instant, which then only ever grows.
        set: {
          total: sql`\`total\` + 1`,
          latestId: sql`CASE WHEN ${VALUES_ARE_NEWER} THEN VALUES(\`latest_id\`) ELSE \`latest_id\` END`,
          latestCreatedAt: sql`CASE WHEN \`latest_created_at\` IS NULL OR VALUES(\`latest_created_at\`) > \`latest_created_at\` THEN VALUES(\`latest_created_at\`) ELSE \`latest_created_at\` END`,
        },
      });
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
    return affected(result) > 0;
  };

  /** The columns an unsuccessful attempt writes. */
  const outcomeColumns = (outcome: DeliveryAttemptOutcome) => ({
    lastError: deliveryError(outcome.error),
    lastStatus: outcome.status,
    updatedAt: wholeSeconds(outcome.at),
  });

  /** An organisation's key, live or dead, with the execution it points at. */
  const findKey = async (orgId: string, key: string) => {
    const [row] = await db
      .select({
        requestDigest: idempotencyKeys.requestDigest,
        expiresAt: idempotencyKeys.expiresAt,
        record: executionColumns,
      })
      .from(idempotencyKeys)
      .innerJoin(executions, eq(executions.id, idempotencyKeys.executionId))
      .where(and(eq(idempotencyKeys.orgId, orgId), eq(idempotencyKeys.key, key)))
      .limit(1);
    return row ?? null;
  };

  /** The newest record of a component's branch that also meets `condition`. */
  const latestOnBranch = async (
    orgId: string,
    repo: string,
    branch: string,
    component: string | null | undefined,
    condition: SQL | undefined,
  ): Promise<ExecutionRecord | null> => {
    const [row] = await db
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
      .limit(1);
    return row ?? null;
  };

  const isMember = (orgId: string, userId: string) =>
    and(eq(memberships.orgId, orgId), eq(memberships.userId, userId));

  const findMember = async (orgId: string, userId: string): Promise<Membership | null> => {
    const row = await first(prepared.member.execute({ orgId, userId }));
    return row ? membershipOf(row) : null;
  };

  /**
   * Runs `change` on a member inside a transaction that first locks the organisation's row,
   * so changes to one organisation's members run one at a time: the owner count `change`
   * reads cannot be changed by a concurrent demotion or removal before it writes.
   */
  const changeMember = (
    orgId: string,
    userId: string,
    change: (tx: Transaction) => Promise<void>,
    demotes: boolean,
  ): Promise<MemberChange> =>
    retryDeadlocks(() =>
      db.transaction(async (tx): Promise<MemberChange> => {
        await tx
          .select({ id: organisations.id })
          .from(organisations)
          .where(eq(organisations.id, orgId))
          .for('update');
        const [member] = await tx
          .select()
          .from(memberships)
          .where(isMember(orgId, userId))
          .for('update');
        if (!member) return 'unknown';
        if (demotes && member.role === 'owner') {
          const [owners] = await tx
            .select({ total: count() })
            .from(memberships)
            .where(and(eq(memberships.orgId, orgId), eq(memberships.role, 'owner')));
          if ((owners?.total ?? 0) <= 1) return 'last-owner';
        }
        await change(tx);
        return 'done';
      }),
    );

  const findInvite = async (where: SQL): Promise<InviteRecord | null> => {
    const [row] = await db.select().from(invites).where(where).limit(1);
    return row ?? null;
  };

  return guardedStore(guard, {
    createOrganisation: async (org: Organisation) => {
      await db.insert(organisations).values({ ...org, createdAt: wholeSeconds(org.createdAt) });
    },

    findOrganisationById: (id: string) => first(prepared.organisationById.execute({ id })),

    findOrganisationBySlug: (slug: string) => first(prepared.organisationBySlug.execute({ slug })),

    setOrganisationPlan: async (id: string, plan: Plan) => {
      const result = await db.update(organisations).set({ plan }).where(eq(organisations.id, id));
      return affected(result) > 0;
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
      if (affected(result) > 0) return 'applied';
      return (await first(prepared.organisationById.execute({ id }))) ? 'stale' : 'unknown';
    },

    createPersonalOrganisation: async (org: Organisation, userId: string) => {
      await db
        .insert(organisations)
        .values({ ...org, createdAt: wholeSeconds(org.createdAt), personalUserId: userId });
    },

    findPersonalOrganisation: (userId: string) =>
      findOrganisation(eq(organisations.personalUserId, userId)),

    findOrCreateUser: async (candidate: User) => {
      // A no-op update on a duplicate identity: no error, and unlike INSERT IGNORE no
      // other failure (an over-long value...) is silenced.
      await db
        .insert(users)
        .values({ ...candidate, createdAt: wholeSeconds(candidate.createdAt) })
        .onDuplicateKeyUpdate({ set: { id: sql`${users.id}` } });
      const stored = await findUser(
        and(eq(users.provider, candidate.provider), eq(users.externalId, candidate.externalId)),
      );
      if (stored === null) throw new StoreConflictError('user id already exists');
      return stored;
    },

    findUserById: (id: string) => first(prepared.userById.execute({ id })),

    insertToken: async (token: TokenRecord) => {
      await db.insert(tokens).values(toTokenRow(token));
    },

    findTokenById: (id: string) => findToken(id),

    listTokensByOrg: async (orgId: string) => {
      const rows = await db
        .select()
        .from(tokens)
        .where(eq(tokens.orgId, orgId))
        .orderBy(desc(tokens.createdAt), desc(tokens.id));
      return rows.map(toTokenRecord);
    },

    updateToken: async (id: string, patch: { name?: string; scopes?: string[] }) => {
      const changes = {
        ...(patch.name === undefined ? {} : { name: patch.name }),
        ...(patch.scopes === undefined ? {} : { scopes: JSON.stringify(patch.scopes) }),
      };
      if (Object.keys(changes).length > 0) {
        await db.update(tokens).set(changes).where(eq(tokens.id, id));
      }
      return findToken(id);
    },

    revokeToken: async (id: string) => {
      const result = await db.update(tokens).set({ status: 'revoked' }).where(eq(tokens.id, id));
      return affected(result) > 0;
    },

    rotateToken: (oldId: string, replacement: TokenRecord, gracePeriodEndsAt: Date) =>
      retryDeadlocks(() =>
        db.transaction(async (tx) => {
          const result = await tx
            .update(tokens)
            .set({ status: 'rotating', gracePeriodEndsAt: wholeSeconds(gracePeriodEndsAt) })
            .where(and(eq(tokens.id, oldId), eq(tokens.status, 'active')));
          if (affected(result) === 0) return false;
          await tx.insert(tokens).values(toTokenRow(replacement));
          return true;
        }),
      ),

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
      return affected(result) > 0;
    },

    insertSession: async (session: SessionRecord) => {
      await db.insert(sessions).values(sessionRow(session));
    },

    findSessionByTokenHash: (tokenHash: string) =>
      first(prepared.sessionByTokenHash.execute({ tokenHash })),

    findSessionById: (id: string) => first(prepared.sessionById.execute({ id })),

    deleteSession: async (id: string) => {
      const result = await db.delete(sessions).where(eq(sessions.id, id));
      return affected(result) > 0;
    },

    setSessionOrganisation: async (id: string, orgId: string) => {
      const result = await db.update(sessions).set({ orgId }).where(eq(sessions.id, id));
      return affected(result) > 0;
    },

    addMember: async (member: Membership) => {
      try {
        await db
          .insert(memberships)
          .values({ ...member, createdAt: wholeSeconds(member.createdAt) });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    },

    findMember: (orgId: string, userId: string) => findMember(orgId, userId),

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

    changeMemberRole: (orgId: string, userId: string, role: Role) =>
      changeMember(
        orgId,
        userId,
        async (tx) => {
          await tx.update(memberships).set({ role }).where(isMember(orgId, userId));
        },
        role !== 'owner',
      ),

    removeMember: (orgId: string, userId: string) =>
      changeMember(
        orgId,
        userId,
        async (tx) => {
          await tx.delete(memberships).where(isMember(orgId, userId));
        },
        true,
      ),

    insertInvite: async (invite: InviteRecord) => {
      await db.insert(invites).values({
        ...invite,
        createdAt: wholeSeconds(invite.createdAt),
        expiresAt: wholeSeconds(invite.expiresAt),
        acceptedAt: invite.acceptedAt === null ? null : wholeSeconds(invite.acceptedAt),
        revokedAt: invite.revokedAt === null ? null : wholeSeconds(invite.revokedAt),
      });
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
      return affected(result) > 0;
    },

    acceptInvite: (tokenHash: string, userId: string, at: Date) =>
      retryDeadlocks(() =>
        db.transaction(async (tx): Promise<InviteAcceptance> => {
          // The invite's row lock makes concurrent acceptances of it run one at a time.
          const [invite] = await tx
            .select()
            .from(invites)
            .where(eq(invites.tokenHash, tokenHash))
            .for('update');
          if (
            !invite ||
            invite.acceptedAt !== null ||
            invite.revokedAt !== null ||
            invite.expiresAt.getTime() <= at.getTime()
          ) {
            return { outcome: 'refused' };
          }
          const [existing] = await tx
            .select()
            .from(memberships)
            .where(isMember(invite.orgId, userId))
            .for('update');
          if (existing) {
            return { outcome: 'already-member', invite, member: membershipOf(existing) };
          }
          const joinedAt = wholeSeconds(at);
          const member = { orgId: invite.orgId, userId, role: invite.role, createdAt: joinedAt };
          await tx.insert(memberships).values(member);
          await tx
            .update(invites)
            .set({ acceptedBy: userId, acceptedAt: joinedAt })
            .where(eq(invites.id, invite.id));
          return {
            outcome: 'accepted',
            invite: { ...invite, acceptedBy: userId, acceptedAt: joinedAt },
            member,
          };
        }),
      ),

    // Replace in one transaction; the unique index on the GitHub organisation refuses a
    // second organisation (the transaction rolls back), so two owners linking one GitHub
    // organisation at once cannot both win. (No ON DUPLICATE KEY UPDATE: it would also fire on
    // that index and rewrite the other organisation's link.)
    linkGithubOrg: async (link: GithubOrgLink) => {
      try {
        await retryDeadlocks(() =>
          db.transaction(async (tx) => {
            await tx.delete(githubOrgLinks).where(eq(githubOrgLinks.orgId, link.orgId));
            await tx
              .insert(githubOrgLinks)
              .values({ ...link, linkedAt: wholeSeconds(link.linkedAt) });
          }),
        );
        return 'done' as const;
      } catch (error) {
        if (isDuplicateKey(error)) return 'taken' as const;
        throw error;
      }
    },

    findGithubOrgLink: async (orgId: string) => {
      const [row] = await db
        .select()
        .from(githubOrgLinks)
        .where(eq(githubOrgLinks.orgId, orgId))
        .limit(1);
      return row ?? null;
    },

    listGithubOrgLinks: () =>
      db.select().from(githubOrgLinks).orderBy(asc(githubOrgLinks.githubOrg)),

    unlinkGithubOrg: async (orgId: string) => {
      const result = await db.delete(githubOrgLinks).where(eq(githubOrgLinks.orgId, orgId));
      return affected(result) > 0;
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
      // The conditional update is the claim: one caller matches the unused row, the others
      // match nothing. The row is read back only by the caller that claimed it.
      const result = await db
        .update(signInLinks)
        .set({ usedAt: wholeSeconds(at) })
        .where(
          and(
            eq(signInLinks.tokenHash, tokenHash),
            isNull(signInLinks.usedAt),
            gt(signInLinks.expiresAt, at),
          ),
        );
      if (affected(result) === 0) return null;
      const [link] = await db
        .select()
        .from(signInLinks)
        .where(eq(signInLinks.tokenHash, tokenHash))
        .limit(1);
      return link ?? null;
    },

    insertExecution: (
      record: ExecutionRecord,
      files?: Uint8Array | null,
      deliveries?: readonly NewDelivery[],
    ) =>
      retryDeadlocks(() => db.transaction((tx) => writeExecution(tx, record, files, deliveries))),

    findExecution: async (orgId: string, id: string) => {
      const [row] = await db
        .select(executionColumns)
        .from(executions)
        .where(and(eq(executions.id, id), eq(executions.orgId, orgId)))
        .limit(1);
      return row ?? null;
    },

    findExecutionFiles: async (orgId: string, id: string) => {
      const [row] = await db
        .select({ data: executionFiles.data })
        .from(executionFiles)
        .where(and(eq(executionFiles.executionId, id), eq(executionFiles.orgId, orgId)))
        .limit(1);
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
        // The key first: a concurrent request with the same key waits on its row lock
        // here, before touching the execution or its counter, and then fails.
        insert: () =>
          retryDeadlocks(() =>
            db.transaction(async (tx) => {
              await tx.insert(idempotencyKeys).values({
                orgId: record.orgId,
                key: claim.key,
                requestDigest: claim.requestDigest,
                executionId: record.id,
                createdAt: wholeSeconds(claim.createdAt),
                expiresAt: wholeSeconds(claim.expiresAt),
              });
              await writeExecution(tx, record, files, deliveries);
            }),
          ),
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
      const result = await db
        .delete(idempotencyKeys)
        .where(lte(idempotencyKeys.expiresAt, wholeSeconds(now)))
        .orderBy(idempotencyKeys.expiresAt)
        .limit(limit);
      return affected(result);
    },

    listExecutions: (query: ListExecutionsQuery) => {
      const { after } = query;
      if (after === undefined && isEmptyFilter(query)) {
        return prepared.firstExecutions.execute({
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
      if (filter !== undefined && !isEmptyFilter(filter)) {
        const [filtered] = await db
          .select({ total: count() })
          .from(executions)
          .where(
            and(
              eq(executions.orgId, orgId),
              eq(executions.repo, repo),
              ...filterConditions(filter),
            ),
          );
        return filtered?.total ?? 0;
      }
      const row = await first(prepared.executionTotal.execute({ orgId, repo }));
      return row?.total ?? 0;
    },

    findOldestExecution: async (orgId: string, repo: string, filter: ExecutionFilter) => {
      const [row] = await db
        .select(executionColumns)
        .from(executions)
        .where(
          and(eq(executions.orgId, orgId), eq(executions.repo, repo), ...filterConditions(filter)),
        )
        .orderBy(asc(executions.createdAt), asc(executions.id))
        .limit(1);
      return row ?? null;
    },

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
      latestOnBranch(orgId, repo, branch, component, eq(executions.baselineEligible, true)),

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
    ): Promise<RepositorySettings | null> => {
      const [row] = await db
        .select()
        .from(repositorySettings)
        .where(and(eq(repositorySettings.orgId, orgId), eq(repositorySettings.repo, repo)))
        .limit(1);
      return row ?? null;
    },

    saveRepositorySettings: async (settings: RepositorySettings) => {
      const row = { ...settings, updatedAt: wholeSeconds(settings.updatedAt) };
      await db
        .insert(repositorySettings)
        .values(row)
        .onDuplicateKeyUpdate({
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
      // A missing row is inserted; an existing one is updated only while no one set the URL.
      // Each statement is atomic, so of concurrent calls only the first write succeeds.
      // (One `ON DUPLICATE KEY UPDATE` cannot say which: mysql2 counts found rows.)
      const inserted = await db
        .insert(repositorySettings)
        .ignore()
        .values({ orgId, repo, patchTarget: null, webUrl, webUrlSource: 'ingest', updatedAt });
      if (affected(inserted) > 0) return true;
      const updated = await db
        .update(repositorySettings)
        .set({ webUrl, webUrlSource: 'ingest', updatedAt })
        .where(
          and(
            eq(repositorySettings.orgId, orgId),
            eq(repositorySettings.repo, repo),
            isNull(repositorySettings.webUrlSource),
          ),
        );
      return affected(updated) > 0;
    },

    putRepositoryLink: async (link: RepositoryLink) => {
      const row = {
        ...link,
        createdAt: wholeSeconds(link.createdAt),
        updatedAt: wholeSeconds(link.updatedAt),
      };
      const { orgId: _org, repo: _repo, ...changes } = row;
      await db.insert(repositoryLinks).values(row).onDuplicateKeyUpdate({ set: changes });
    },

    findRepositoryLink: async (orgId: string, repo: string) => {
      const [row] = await db
        .select()
        .from(repositoryLinks)
        .where(and(eq(repositoryLinks.orgId, orgId), eq(repositoryLinks.repo, repo)))
        .limit(1);
      return row ?? null;
    },

    deleteRepositoryLink: async (orgId: string, repo: string) => {
      const result = await db
        .delete(repositoryLinks)
        .where(and(eq(repositoryLinks.orgId, orgId), eq(repositoryLinks.repo, repo)));
      return affected(result) > 0;
    },

    // The due rows are locked as they are picked; SKIP LOCKED makes a concurrent claimer pass
    // over them (taking the next due ones) instead of waiting and then taking them again.
    claimDeliveries: (owner: string, now: Date, leaseMs: number, limit: number) =>
      retryDeadlocks(() =>
        db.transaction(async (tx): Promise<DeliveryRecord[]> => {
          const at = wholeSeconds(now);
          const due = await tx
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
            .limit(limit)
            .for('update', { skipLocked: true });
          if (due.length === 0) return [];
          const ids = due.map((row) => row.id);
          await tx
            .update(deliveryTable)
            .set({
              leaseOwner: owner,
              leaseUntil: leaseEnd(now, leaseMs),
              attempts: sql`${deliveryTable.attempts} + 1`,
              updatedAt: at,
            })
            .where(inArray(deliveryTable.id, ids));
          return tx
            .select()
            .from(deliveryTable)
            .where(inArray(deliveryTable.id, ids))
            .orderBy(asc(deliveryTable.nextAttemptAt), asc(deliveryTable.id));
        }),
      ),

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
      const [totals, [oldest]] = await Promise.all([
        db
          .select({ state: deliveryTable.state, total: count() })
          .from(deliveryTable)
          .where(inArray(deliveryTable.state, ['pending', 'failed']))
          .groupBy(deliveryTable.state),
        db
          .select({ createdAt: deliveryTable.createdAt })
          .from(deliveryTable)
          .where(eq(deliveryTable.state, 'pending'))
          .orderBy(asc(deliveryTable.createdAt))
          .limit(1),
      ]);
      const total = (state: string) => totals.find((row) => row.state === state)?.total ?? 0;
      const age = oldest
        ? Math.floor((wholeSeconds(now).getTime() - oldest.createdAt.getTime()) / 1000)
        : 0;
      return {
        pending: total('pending'),
        oldestPendingAgeSeconds: Math.max(0, age),
        failed: total('failed'),
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
      assertFits(provider, 64, 'provider');
      assertFits(eventId, 255, 'event id');
      const result = await db
        .insert(webhookEvents)
        .ignore()
        .values({ provider, eventId, claimedAt: wholeSeconds(at) });
      return affected(result) === 1;
    },

    releaseWebhookEvent: async (provider: string, eventId: string) => {
      await db
        .delete(webhookEvents)
        .where(and(eq(webhookEvents.provider, provider), eq(webhookEvents.eventId, eventId)));
    },

    // Not through guard: a load balancer probing a down database every few seconds must
    // not flood the log; the probe's 503 is the report.
    ping: async () => {
      await withDeadline(deadlineMs, () => pool.query('SELECT 1'));
    },

    close: async () => {
      if (owned) await pool.end();
    },
  });
}

/**
 * `INSERT IGNORE` would truncate an over-long value to the column size, and two long event
 * ids sharing a prefix would then claim the same row: refuse them instead.
 */
function assertFits(value: string, maxCharacters: number, what: string): void {
  if ([...value].length > maxCharacters) {
    throw new Error(`${what} longer than ${maxCharacters} characters`);
  }
}

function openPool(options: MySqlStoreOptions): {
  pool: Pool;
  owned: boolean;
  secrets: string[];
} {
  if (options.pool !== undefined) {
    if (options.url !== undefined || options.poolSize !== undefined || options.ssl !== undefined) {
      throw new Error('url, poolSize and ssl make a pool: give them or a pool, not both');
    }
    return { pool: options.pool, owned: false, secrets: [] };
  }
  if (options.url === undefined) throw new Error('createMySqlStore needs a url or a pool');
  const url = parseMySqlUrl(options.url);
  const settings = {
    ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
    ...(options.ssl === undefined ? {} : { ssl: options.ssl }),
  };
  return {
    pool: createPool(poolOptionsFor(url, settings)),
    owned: true,
    secrets: [options.url, url.password],
  };
}
