import { wholeSeconds } from '../../time/timestamp.js';
import type {
  ExecutionRecord,
  IdempotencyKeyClaim,
  InviteRecord,
  RepositoryLink,
  RepositorySettings,
  SignInLinkRecord,
} from '../store.js';
import { wholeSecondOrNull } from './rows.js';

/** An invite's row with its instants truncated to whole seconds. */
export const inviteRow = (invite: InviteRecord): InviteRecord => ({
  ...invite,
  createdAt: wholeSeconds(invite.createdAt),
  expiresAt: wholeSeconds(invite.expiresAt),
  acceptedAt: wholeSecondOrNull(invite.acceptedAt),
  revokedAt: wholeSecondOrNull(invite.revokedAt),
});

/** True while an invite can be accepted at `at`: neither accepted, revoked nor expired. */
export const isInviteOpen = (invite: InviteRecord, at: Date): boolean =>
  invite.acceptedAt === null &&
  invite.revokedAt === null &&
  invite.expiresAt.getTime() > at.getTime();

/** A sign-in link's row with its instants truncated to whole seconds. */
export const signInLinkRow = (link: SignInLinkRecord): SignInLinkRecord => ({
  ...link,
  createdAt: wholeSeconds(link.createdAt),
  expiresAt: wholeSeconds(link.expiresAt),
  usedAt: wholeSecondOrNull(link.usedAt),
});

/** The idempotency key row a keyed insert of `record` writes. */
export const idempotencyKeyRow = (record: ExecutionRecord, claim: IdempotencyKeyClaim) => ({
  orgId: record.orgId,
  key: claim.key,
  requestDigest: claim.requestDigest,
  executionId: record.id,
  createdAt: wholeSeconds(claim.createdAt),
  expiresAt: wholeSeconds(claim.expiresAt),
});

/** A per-repository row to upsert, and the columns an existing one takes from it. */
export interface RepositoryUpsert<Row extends { orgId: string; repo: string }> {
  row: Row;
  changes: Omit<Row, 'orgId' | 'repo'>;
}

const repositoryUpsert = <Row extends { orgId: string; repo: string }>(
  row: Row,
): RepositoryUpsert<Row> => {
  const { orgId: _org, repo: _repo, ...changes } = row;
  return { row, changes };
};

/** The upsert of a repository's settings, its instant in whole seconds. */
export const repositorySettingsUpsert = (settings: RepositorySettings) =>
  repositoryUpsert({ ...settings, updatedAt: wholeSeconds(settings.updatedAt) });

/** The upsert of a repository's link, its instants in whole seconds. */
export const repositoryLinkUpsert = (link: RepositoryLink) =>
  repositoryUpsert({
    ...link,
    createdAt: wholeSeconds(link.createdAt),
    updatedAt: wholeSeconds(link.updatedAt),
  });
