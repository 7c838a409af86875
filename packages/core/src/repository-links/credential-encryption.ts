import {
  createCipheriv,
  createDecipheriv,
  hkdfSync,
  randomBytes as nodeRandomBytes,
} from 'node:crypto';

// Credentials covgate must use again later (a code host's token) are sealed with AES-256-GCM
// under a key derived from the server's session secret, so no new secret has to be configured
// and the existing rotation of SESSION_SECRET rotates this key too (docs/decisions.md).

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** A sealed credential of more than this is refused unread (GitHub tokens are < 300 bytes). */
const MAX_PLAINTEXT_BYTES = 4096;
const HKDF_SALT = 'covgate';
const HKDF_INFO = 'covgate credential encryption v1';
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The session secrets a server holds: the current one seals, both open. */
export interface CredentialSecrets {
  /** `SESSION_SECRET`: what new credentials are sealed under. */
  sessionSecret: string;
  /** `SESSION_SECRET_PREVIOUS` while a rotation is under way: still opens what it sealed. */
  previousSessionSecret?: string | undefined;
}

/** What {@link decryptCredential} opened, and under which secret. */
export interface DecryptedCredential {
  plaintext: string;
  /**
   * True when it was sealed under the previous session secret: seal it again with
   * {@link encryptCredential} and store that, or it becomes unreadable once the previous
   * secret is dropped.
   */
  underPreviousSecret: boolean;
}

/**
 * A sealed credential that does not open: altered, cut, of another context, or sealed under a
 * secret this server does not hold. The message never contains any of the input.
 */
export class CredentialDecryptionError extends Error {
  constructor() {
    super(
      'the stored credential cannot be decrypted: it was altered, or sealed under a session secret this server no longer holds; enter the credential again',
    );
    this.name = 'CredentialDecryptionError';
  }
}

/**
 * The context a repository link's credential is sealed for: its organisation and repository,
 * so a ciphertext copied into another link's row does not open there.
 */
export function repositoryLinkCredentialContext(orgId: string, repo: string): string {
  return `repository-link\u0000${orgId}\u0000${repo}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, HKDF_SALT, HKDF_INFO, KEY_BYTES));
}

function additionalData(context: string): Buffer {
  return Buffer.from(`covgate credential ${VERSION}\u0000${context}`, 'utf8');
}

/**
 * Seals `plaintext` for `context` with AES-256-GCM under a key derived (HKDF-SHA-256) from
 * the current session secret: `v1.<iv>.<ciphertext>.<tag>`, each part base64url, a random
 * 96-bit IV each time. `randomBytes` is injectable so tests can be exact.
 */
export function encryptCredential(
  plaintext: string,
  context: string,
  secrets: Pick<CredentialSecrets, 'sessionSecret'>,
  randomBytes: (size: number) => Buffer = nodeRandomBytes,
): string {
  const bytes = Buffer.from(plaintext, 'utf8');
  if (bytes.length === 0 || bytes.length > MAX_PLAINTEXT_BYTES)
    throw new RangeError(`a credential is 1 to ${MAX_PLAINTEXT_BYTES} bytes`);
  const iv = randomBytes(IV_BYTES);
  if (iv.length !== IV_BYTES) throw new RangeError(`the IV must be ${IV_BYTES} bytes`);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secrets.sessionSecret), iv, {
    authTagLength: TAG_BYTES,
  });
  cipher.setAAD(additionalData(context));
  const ciphertext = Buffer.concat([cipher.update(bytes), cipher.final()]);
  return [
    VERSION,
    iv.toString('base64url'),
    ciphertext.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
  ].join('.');
}

/** A base64url part decoded, or undefined unless it is canonical (decodes and re-encodes to itself). */
function part(text: string | undefined): Buffer | undefined {
  if (text === undefined || !BASE64URL.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

function open(secret: string, context: string, iv: Buffer, body: Buffer, tag: Buffer) {
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), iv, {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(additionalData(context));
    decipher.setAuthTag(tag);
    const bytes = Buffer.concat([decipher.update(body), decipher.final()]);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Opens what {@link encryptCredential} sealed for the same `context`, trying the current
 * session secret, then the previous one. Fails closed: a wrong version, a part of the wrong
 * length or not canonical base64url, any altered bit, another context or an unknown key all
 * throw {@link CredentialDecryptionError}.
 */
export function decryptCredential(
  sealed: string,
  context: string,
  secrets: CredentialSecrets,
): DecryptedCredential {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new CredentialDecryptionError();
  const iv = part(parts[1]);
  const body = part(parts[2]);
  const tag = part(parts[3]);
  if (
    iv?.length !== IV_BYTES ||
    tag?.length !== TAG_BYTES ||
    body === undefined ||
    body.length > MAX_PLAINTEXT_BYTES
  )
    throw new CredentialDecryptionError();
  const current = open(secrets.sessionSecret, context, iv, body, tag);
  if (current !== undefined) return { plaintext: current, underPreviousSecret: false };
  const previous = secrets.previousSessionSecret;
  if (previous && previous !== secrets.sessionSecret) {
    const opened = open(previous, context, iv, body, tag);
    if (opened !== undefined) return { plaintext: opened, underPreviousSecret: true };
  }
  throw new CredentialDecryptionError();
}

/** The last four characters of a credential, as answers show it (`…abcd`); never more. */
export function credentialHint(plaintext: string): string {
  const characters = [...plaintext];
  return characters.length <= 8 ? '…' : `…${characters.slice(-4).join('')}`;
}

/** What of a repository link its credential's sealing depends on. */
export interface SealedRepositoryLinkCredential {
  orgId: string;
  repo: string;
  /** The sealed token, as {@link encryptCredential} made it. */
  credential: string;
}

/**
 * Opens a repository link's token (for the sender of its deliveries): {@link decryptCredential}
 * in the link's own context. Throws {@link CredentialDecryptionError}.
 */
export function decryptRepositoryLinkCredential(
  link: SealedRepositoryLinkCredential,
  secrets: CredentialSecrets,
): DecryptedCredential {
  return decryptCredential(
    link.credential,
    repositoryLinkCredentialContext(link.orgId, link.repo),
    secrets,
  );
}
