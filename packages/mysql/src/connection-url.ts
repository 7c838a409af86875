/**
 * How TLS is used for the database connection, with libpq's names:
 * - `disable`: plaintext;
 * - `require`: TLS, the certificate is not verified (protects against passive eavesdropping
 *   only, like libpq's `require`);
 * - `verify-ca`: TLS, the certificate must chain to a trusted CA (the `ssl.ca` option or
 *   Node's bundled roots), any host name accepted;
 * - `verify-full`: as `verify-ca`, and the certificate must name the host.
 */
export type SslMode = 'disable' | 'require' | 'verify-ca' | 'verify-full';

/** The parts of a `mysql://` URL, decoded. */
export interface MySqlUrl {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** From `sslmode` (or MySQL's `ssl-mode`); undefined when the URL names none. */
  sslMode: SslMode | undefined;
  /** True when the URL alone requires TLS (`require`, `verify-ca` or `verify-full`). */
  tls: boolean;
}

const LIBPQ_MODES: Record<string, SslMode> = {
  disable: 'disable',
  require: 'require',
  'verify-ca': 'verify-ca',
  'verify-full': 'verify-full',
};

/** MySQL client spellings (`--ssl-mode`), accepted in any case. */
const MYSQL_MODES: Record<string, SslMode> = {
  disabled: 'disable',
  required: 'require',
  verify_ca: 'verify-ca',
  verify_identity: 'verify-full',
};

const DEFAULT_PORT = 3306;

/**
 * Parses a `mysql://user:password@host:port/database?sslmode=...` URL (`mariadb://` is
 * accepted too). Percent-encoded user names and passwords are decoded. The only query
 * parameters accepted are `sslmode` (`disable`, `require`, `verify-ca`, `verify-full`) and
 * MySQL's equivalent `ssl-mode` (`DISABLED`, `REQUIRED`, `VERIFY_CA`, `VERIFY_IDENTITY`);
 * `prefer`/`PREFERRED` are refused because a silent fall-back to plaintext is not a TLS
 * setting. Throws an `Error` naming the problem; its message never contains the URL or
 * any part of its credentials.
 */
export function parseMySqlUrl(url: string): MySqlUrl {
  if (typeof url !== 'string') throw new Error('DATABASE_URL must be a string');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('DATABASE_URL is not a valid URL');
  }
  if (parsed.protocol !== 'mysql:' && parsed.protocol !== 'mariadb:') {
    throw new Error('DATABASE_URL must start with mysql:// or mariadb://');
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw new Error('DATABASE_URL names no host');
  const database = decodePart(parsed.pathname.replace(/^\//, ''), 'database name');
  if (database === '' || database.includes('/')) {
    throw new Error('DATABASE_URL must name exactly one database in its path');
  }
  const sslMode = readSslMode(parsed.searchParams);
  return {
    host,
    port: parsed.port === '' ? DEFAULT_PORT : Number(parsed.port),
    user: decodePart(parsed.username, 'user name'),
    password: decodePart(parsed.password, 'password'),
    database,
    sslMode,
    tls: sslMode !== undefined && sslMode !== 'disable',
  };
}

function decodePart(encoded: string, what: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new Error(`DATABASE_URL has a malformed ${what} (bad percent-encoding)`);
  }
}

function readSslMode(params: URLSearchParams): SslMode | undefined {
  let mode: SslMode | undefined;
  for (const [name, value] of params) {
    const table = name === 'sslmode' ? LIBPQ_MODES : name === 'ssl-mode' ? MYSQL_MODES : null;
    if (table === null) throw new Error(`DATABASE_URL parameter "${name}" is not supported`);
    const key = name === 'ssl-mode' ? value.toLowerCase() : value;
    const next = Object.hasOwn(table, key) ? table[key] : undefined;
    if (next === undefined) throw new Error(`DATABASE_URL ${name} "${value}" is not supported`);
    if (mode !== undefined && mode !== next) {
      throw new Error('DATABASE_URL names two different TLS modes');
    }
    mode = next;
  }
  return mode;
}
