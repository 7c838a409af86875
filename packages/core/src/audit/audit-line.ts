import type { MembershipSource } from '../storage/records/memberships.js';

/** Why a request to a protected endpoint was refused. */
export type AuthDeniedReason = 'missing_token' | 'invalid_or_expired_token';

/**
 * A security-relevant event, one variant per line pattern of docs/audit-log.md. Every string is
 * printed through the escaping of {@link formatAuditLine}, so attacker-influenced values
 * (paths, methods, remote addresses, agent types, user ids) are safe to pass as they are.
 */
export type AuditEvent =
  | {
      type: 'session.create';
      userId: string;
      orgId: string;
      sessionId: string;
      /** How the session was made when not through the service token or a code host: `link`. */
      method?: 'link';
    }
  | { type: 'session.delete'; sessionId: string }
  | { type: 'session.create.denied'; remote: string }
  | {
      type: 'auth.denied';
      method: string;
      /** The request path; a query string or fragment is dropped before printing. */
      path: string;
      reason: AuthDeniedReason;
      remote: string;
    }
  | {
      type: 'token.create';
      orgId: string;
      tokenId: string;
      scopes: readonly string[];
      agentType: string;
    }
  | { type: 'token.rotate'; oldId: string; newId: string }
  | { type: 'token.revoke'; tokenId: string }
  /** A token verified under the previous `TOKEN_PEPPER` and was re-hashed under the current one. */
  | { type: 'token.rehash'; tokenId: string }
  | { type: 'organisation.create'; orgId: string; slug: string }
  /**
   * A user joined an organisation (first session, sign-in link, invite, code-host login);
   * `via` through its link to a GitHub organisation (`github-org`), a GitLab group
   * (`gitlab-group`) or a Gitea organisation (`gitea-org`).
   */
  | { type: 'member.add'; orgId: string; userId: string; role: string; via?: MembershipSource }
  /** An owner (`by`) changed a member's role. */
  | { type: 'member.role'; orgId: string; userId: string; role: string; by: string }
  /**
   * An owner (`by`) removed a member, or a member (`by` = `userId`) left; `by` the host
   * (`github`, `gitlab`, `gitea`) with `via` as for `member.add` when the host no longer lists
   * the member in the linked organisation.
   */
  | { type: 'member.remove'; orgId: string; userId: string; by: string; via?: MembershipSource }
  /**
   * An owner (`by`) linked the organisation to an organisation on a code host: a GitHub one
   * as `githubOrg`, another host's as `host` and `organisation`.
   */
  | {
      type: 'organisation.link';
      orgId: string;
      githubOrg?: string;
      host?: string;
      organisation?: string;
      by: string;
    }
  /** An owner (`by`) removed the organisation's link (named as for a link). */
  | {
      type: 'organisation.unlink';
      orgId: string;
      githubOrg?: string;
      host?: string;
      organisation?: string;
      by: string;
    }
  /**
   * An owner (`by`) changed the organisation's minimums; each is printed as set afterwards, a
   * percentage or `none`.
   */
  | {
      type: 'organisation.settings';
      orgId: string;
      minPatchTarget: string;
      minProjectTarget: string;
      by: string;
    }
  /**
   * An admin (`by`) linked a repository to a code-host repository, with a new credential: a
   * GitHub one as `githubRepo`, another host's as `host` and `repository`.
   */
  | {
      type: 'repository.link';
      orgId: string;
      repo: string;
      githubRepo?: string;
      host?: string;
      repository?: string;
      apiUrl: string;
      by: string;
    }
  /** An admin (`by`) removed a repository's link and its credential (named as for a link). */
  | {
      type: 'repository.unlink';
      orgId: string;
      repo: string;
      githubRepo?: string;
      host?: string;
      repository?: string;
      by: string;
    }
  | { type: 'invite.create'; orgId: string; inviteId: string; role: string; by: string }
  | { type: 'invite.accept'; orgId: string; inviteId: string; userId: string }
  | { type: 'invite.revoke'; orgId: string; inviteId: string; by: string }
  /**
   * `userId` tried to accept an open invite whose maker (`createdBy`) is no longer an owner
   * of the organisation: refused.
   */
  | {
      type: 'invite.accept.denied';
      orgId: string;
      inviteId: string;
      userId: string;
      createdBy: string;
      reason: 'maker_not_owner';
    }
  | { type: 'organisation.create.denied'; remote: string }
  /** The outbox decrypted a repository's GitHub credential to send a delivery with it. */
  | { type: 'repository.credential.use'; orgId: string; repo: string; deliveryId: string }
  /** The API used a repository's credential to read a run's file for the run page. */
  | { type: 'repository.source.read'; orgId: string; repo: string; commit: string; path: string };

/**
 * Formats an event as its single audit line, for example
 * `[audit] token.create org_id=org_x token_id=abc scopes=[execute] agent_type=""`.
 *
 * Values made only of `A-Z a-z 0-9 . _ ~ : / @ % + -` are printed bare. Any other value
 * (including the empty one, printed `""`) is printed as a JSON string literal in which every
 * character outside printable ASCII, and the space, `=`, `,`, `[` and `]`, is written as a
 * `\uXXXX` escape. So a line is printable ASCII, spaces only separate fields, each field has
 * exactly one `=` (after its key) and `JSON.parse` gives the original value back. Before
 * that, anything shaped like an API, session, sign-in link or invite token (`cvg_`, `cvgs_`,
 * `cvgl_`, `cvgi_` and 32 or more token characters) is replaced by `cvg_REDACTED`,
 * `cvgs_REDACTED`, `cvgl_REDACTED` or `cvgi_REDACTED`, so no line holds a secret.
 */
export function formatAuditLine(event: AuditEvent): string {
  switch (event.type) {
    case 'session.create.denied':
    case 'organisation.create.denied':
      return auditLine(event.type, [
        field('reason', 'invalid_service_token'),
        field('remote', event.remote),
      ]);
    case 'auth.denied':
      return auditLine(event.type, [
        field('method', event.method),
        field('path', withoutQuery(event.path)),
        field('reason', event.reason),
        field('remote', event.remote),
      ]);
    case 'token.create':
      return auditLine(event.type, [
        field('org_id', event.orgId),
        field('token_id', event.tokenId),
        `scopes=[${event.scopes.map(formatValue).join(',')}]`,
        field('agent_type', event.agentType),
      ]);
    default:
      return auditLine(event.type, printedFields(event));
  }
}

/** An event that prints its string fields as they are, each under its property's snake_case. */
type PlainEvent = Exclude<
  AuditEvent,
  { type: 'session.create.denied' | 'organisation.create.denied' | 'auth.denied' | 'token.create' }
>;

/**
 * The properties each plain event prints, in the order of its line; an optional one is left
 * out when the event has none. A pair names a field whose key is not the property's snake_case.
 */
const PLAIN_FIELDS: {
  [T in PlainEvent['type']]: readonly PrintedProperty<Extract<PlainEvent, { type: T }>>[];
} = {
  'session.create': ['userId', 'orgId', 'sessionId', 'method'],
  'session.delete': ['sessionId'],
  'token.rotate': ['oldId', 'newId'],
  'token.revoke': ['tokenId'],
  'token.rehash': ['tokenId'],
  'organisation.create': ['orgId', 'slug'],
  'member.add': ['orgId', 'userId', 'role', 'via'],
  'member.role': ['orgId', 'userId', 'role', 'by'],
  'member.remove': ['orgId', 'userId', 'by', 'via'],
  'organisation.link': ['orgId', 'githubOrg', 'host', 'organisation', 'by'],
  'organisation.unlink': ['orgId', 'githubOrg', 'host', 'organisation', 'by'],
  'organisation.settings': ['orgId', 'minPatchTarget', 'minProjectTarget', 'by'],
  'repository.link': ['orgId', 'repo', 'githubRepo', 'host', 'repository', 'apiUrl', 'by'],
  'repository.unlink': ['orgId', 'repo', 'githubRepo', 'host', 'repository', 'by'],
  'invite.create': ['orgId', 'inviteId', 'role', 'by'],
  'invite.accept': ['orgId', 'inviteId', 'userId'],
  'invite.revoke': ['orgId', 'inviteId', 'by'],
  'invite.accept.denied': ['orgId', 'inviteId', 'userId', 'createdBy', 'reason'],
  'repository.credential.use': ['orgId', 'repo', ['delivery', 'deliveryId']],
  'repository.source.read': ['orgId', 'repo', 'commit', 'path'],
};

/** A property of `E` that a line prints: by name, or as `[key, property]`. */
type PrintedProperty<E> =
  | Exclude<keyof E & string, 'type'>
  | readonly [key: string, property: Exclude<keyof E & string, 'type'>];

function printedFields(event: PlainEvent): string[] {
  const properties: readonly (string | readonly [string, string])[] = PLAIN_FIELDS[event.type];
  const values = event as unknown as Record<string, string | undefined>;
  return properties.flatMap((printed) => {
    const [key, property] = typeof printed === 'string' ? [snakeCase(printed), printed] : printed;
    return optionalField(key, values[property]);
  });
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

const BARE_VALUE = /^[A-Za-z0-9._~:/@%+-]+$/;
const ESCAPED_IN_QUOTES = /[^\x21-\x7e]|[=,[\]]/g;
const TOKEN_LIKE = /cvg([sli]?)_[A-Za-z0-9_-]{32,}/g;

function auditLine(type: AuditEvent['type'], fields: string[]): string {
  return `[audit] ${type} ${fields.join(' ')}`;
}

function field(key: string, value: string): string {
  return `${key}=${formatValue(value)}`;
}

/** The field of an optional value: none when the event leaves it out. */
function optionalField(key: string, value: string | undefined): string[] {
  return value === undefined ? [] : [field(key, value)];
}

/**
 * Replaces anything shaped like an API, session, sign-in link or invite token with
 * `cvg_REDACTED`, `cvgs_REDACTED`, `cvgl_REDACTED` or `cvgi_REDACTED`. Used for audit values
 * and for paths in the access log.
 */
export function redactTokens(text: string): string {
  return text.replace(TOKEN_LIKE, 'cvg$1_REDACTED');
}

function formatValue(raw: string): string {
  const value = redactTokens(raw);
  if (BARE_VALUE.test(value)) {
    return value;
  }
  return JSON.stringify(value).replace(
    ESCAPED_IN_QUOTES,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function withoutQuery(path: string): string {
  const end = path.search(/[?#]/);
  return end === -1 ? path : path.slice(0, end);
}
