import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { usageError } from './errors.js';

/**
 * The API token: `COVGATE_TOKEN`, or the content of the file named by `COVGATE_TOKEN_FILE`
 * (trimmed). Never a flag: flags show in `ps` and shell history.
 *
 * @throws CliError (exit 2) when neither is set or the file cannot be read
 */
export async function readApiToken(env: NodeJS.ProcessEnv): Promise<string> {
  const direct = env.COVGATE_TOKEN?.trim();
  if (direct) return apiTokenOnly(direct, 'COVGATE_TOKEN');
  const file = env.COVGATE_TOKEN_FILE;
  if (file) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw usageError(
        `COVGATE_TOKEN_FILE ${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    const token = text.trim();
    if (!token) throw usageError(`COVGATE_TOKEN_FILE ${file}: the file is empty`);
    return apiTokenOnly(token, `COVGATE_TOKEN_FILE ${file}`);
  }
  throw usageError(
    'no API token: set COVGATE_TOKEN (or COVGATE_TOKEN_FILE to a file holding it), e.g. from your CI secrets',
  );
}

/**
 * The token, unless it is a session token (`cvgs_`): a person's sign-in, which the service
 * refuses for runs and which must not sit in CI secrets. `source` names where it came from.
 *
 * @throws CliError (exit 2) saying what to set instead
 */
function apiTokenOnly(token: string, source: string): string {
  if (!token.startsWith('cvgs_')) return token;
  throw usageError(
    `${source} holds a session token (cvgs_...), which signs a person in; the gate needs an API token (cvg_...) with the execute scope: create one with \`covgate tokens create ci\` or on the dashboard's API tokens page, and set COVGATE_TOKEN to it`,
  );
}

/**
 * covgate's configuration folder: `$XDG_CONFIG_HOME/covgate` or `~/.config/covgate` on Linux
 * and other Unix systems, `~/Library/Preferences/covgate` on macOS, `%APPDATA%\covgate` on
 * Windows (`COVGATE_CONFIG_DIR` overrides all).
 */
export function configDir(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.COVGATE_CONFIG_DIR) return env.COVGATE_CONFIG_DIR;
  const home = env.HOME || homedir();
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'covgate');
  if (platform === 'darwin') return join(home, 'Library', 'Preferences', 'covgate');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'covgate');
}

/** What `covgate login` stores. */
export interface StoredConfig {
  /** The service the session belongs to. */
  url: string;
  /** The session token (`cvgs_...`). */
  session: string;
}

/** The stored configuration, or undefined when there is none (or it is not covgate's). */
export async function readConfig(env: NodeJS.ProcessEnv): Promise<StoredConfig | undefined> {
  let text: string;
  try {
    text = await readFile(join(configDir(env), 'config.json'), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const doc = JSON.parse(text) as Partial<StoredConfig>;
    if (typeof doc.url === 'string' && typeof doc.session === 'string')
      return { url: doc.url, session: doc.session };
  } catch {
    // A damaged file is the same as none: `covgate login` writes it again.
  }
  return undefined;
}

/**
 * Writes the configuration readable by its owner only: the folder `0700`, the file `0600`
 * (chmod again, since an existing file keeps its mode through `writeFile`).
 *
 * @returns the file's path
 */
export async function writeConfig(env: NodeJS.ProcessEnv, config: StoredConfig): Promise<string> {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'config.json');
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}
