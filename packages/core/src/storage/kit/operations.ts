import type { Store } from '../store.js';
import type { StoreComponent } from './failures.js';
import type { StoreGuard } from './guard.js';

/** A `Store` method that runs through the guard: every one but the probe and `close`. */
export type StoreOperation = Exclude<keyof Store, 'ping' | 'close'>;

/** How the guard runs one store operation. */
export interface OperationSpec {
  /** The prefix of its failure line. */
  readonly component: StoreComponent;
  /** The `StoreConflictError` message of a duplicate key; absent where one is a failure. */
  readonly conflict?: string;
}

const organisations: OperationSpec = { component: 'organisations' };
const tokens: OperationSpec = { component: 'tokens' };
const sessions: OperationSpec = { component: 'sessions' };
const executions: OperationSpec = { component: 'executions' };
const outbox: OperationSpec = { component: 'outbox' };
const webhooks: OperationSpec = { component: 'webhooks' };

/**
 * Every guarded store operation with its log component and conflict message: the one place
 * that says under which prefix an operation's failure is logged and what a duplicate key
 * answers, so every SQL store logs and refuses alike.
 */
export const STORE_OPERATIONS: { readonly [Name in StoreOperation]: OperationSpec } = {
  createOrganisation: { ...organisations, conflict: 'organisation id or slug already exists' },
  findOrganisationById: organisations,
  findOrganisationBySlug: organisations,
  setOrganisationPlan: organisations,
  applyPlanChange: organisations,
  createPersonalOrganisation: {
    ...organisations,
    conflict: 'organisation id or slug already exists, or the user has a personal organisation',
  },
  findPersonalOrganisation: organisations,
  findOrganisationSettings: organisations,
  saveOrganisationSettings: organisations,
  findOrCreateUser: { ...sessions, conflict: 'user id already exists' },
  findUserById: sessions,
  insertToken: { ...tokens, conflict: 'token id already exists' },
  findTokenById: tokens,
  listTokensByOrg: tokens,
  updateToken: tokens,
  revokeToken: tokens,
  rotateToken: { ...tokens, conflict: 'token id already exists' },
  touchToken: tokens,
  replaceTokenHash: tokens,
  insertSession: { ...sessions, conflict: 'session id or token hash already exists' },
  findSessionByTokenHash: sessions,
  findSessionById: sessions,
  deleteSession: sessions,
  setSessionOrganisation: sessions,
  addMember: organisations,
  findMember: organisations,
  listMembers: organisations,
  listUserOrganisations: organisations,
  changeMemberRole: organisations,
  removeMember: organisations,
  insertSignInLink: { ...sessions, conflict: 'sign-in link id or token hash already exists' },
  useSignInLink: sessions,
  linkOrganisation: organisations,
  findOrganisationLink: organisations,
  listOrganisationLinks: organisations,
  unlinkOrganisation: organisations,
  insertInvite: { ...organisations, conflict: 'invite id or token hash already exists' },
  findInviteById: organisations,
  findInviteByTokenHash: organisations,
  listInvites: organisations,
  revokeInvite: organisations,
  acceptInvite: organisations,
  insertExecution: { ...executions, conflict: 'execution id already exists' },
  findExecution: executions,
  findExecutionFiles: executions,
  findExecutionLines: executions,
  listExecutions: executions,
  listExecutionPoints: executions,
  countExecutions: executions,
  findOldestExecution: executions,
  listComponents: executions,
  listRepositories: executions,
  findBaseline: executions,
  findBaselineAtCommit: executions,
  findLatestExecution: executions,
  insertKeyedExecution: executions,
  findIdempotentExecution: executions,
  deleteExpiredIdempotencyKeys: executions,
  findCommitReport: executions,
  listPartUploads: executions,
  insertCommitReport: { ...executions, conflict: 'commit report already exists' },
  updateCommitReport: { ...executions, conflict: 'idempotency key already exists' },
  listOverdueReports: executions,
  findRepositorySettings: executions,
  saveRepositorySettings: executions,
  claimRepositoryWebUrl: executions,
  putRepositoryLink: executions,
  findRepositoryLink: executions,
  deleteRepositoryLink: executions,
  claimDeliveries: outbox,
  markDeliverySent: outbox,
  retryDelivery: outbox,
  deferDelivery: outbox,
  releaseDeliveries: outbox,
  failDelivery: outbox,
  outboxStats: outbox,
  listDeliveryFailures: outbox,
  listRunDeliveries: outbox,
  listRepositoryKeys: executions,
  listRetentionRuns: executions,
  measureRunDetail: executions,
  pruneRunDetail: executions,
  findDetailPrunedAt: executions,
  claimWebhookEvent: webhooks,
  releaseWebhookEvent: webhooks,
};

/** A dialect's store methods before guarding; queries may return drizzle's lazy promises. */
export type StoreMethods = {
  [Name in keyof Store]: Store[Name] extends ((...args: infer A) => Promise<infer R>) | undefined
    ? (...args: A) => PromiseLike<R>
    : Store[Name];
};

type AnyOperation = (...args: unknown[]) => PromiseLike<unknown>;

/**
 * The {@link Store} whose every {@link StoreOperation} runs `methods`' implementation through
 * `guard` under its name and its {@link STORE_OPERATIONS} entry; `ping` and `close` are
 * passed through as they are (a probe of a down database must not flood the log).
 */
export function guardedStore(guard: StoreGuard, methods: StoreMethods): Store {
  const store: Record<string, unknown> = { close: methods.close.bind(methods) };
  if (methods.ping !== undefined) store.ping = methods.ping.bind(methods);
  for (const [name, { component, conflict }] of Object.entries(STORE_OPERATIONS)) {
    const method = methods[name as StoreOperation] as AnyOperation;
    store[name] = (...args: unknown[]) =>
      guard(component, name, async () => Reflect.apply(method, methods, args), conflict);
  }
  return store as unknown as Store;
}
