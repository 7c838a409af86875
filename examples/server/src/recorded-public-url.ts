import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerConfig } from './config.js';
import { publicUrlOf } from './public-urls.js';

/**
 * File of the data folder in which a starting server records its `PUBLIC_URL` (or the
 * `http://localhost:<PORT>` it assumes), so that `covgate-admin`, run with the same data
 * folder but not always the same environment, builds links on the server's address.
 */
export const PUBLIC_URL_FILE = 'public-url';

const HTTP_ORIGIN = /^https?:\/\/[^/\s]+$/;

/**
 * Records where browsers reach this server in the data folder, when the folder exists (the
 * embedded database or the development secret made it; a server on MySQL with its secrets in
 * the environment may have none, and its `covgate-admin` runs with that environment).
 *
 * @returns the file written, or null when there is no data folder.
 */
export async function recordPublicUrl(config: ServerConfig): Promise<string | null> {
  if (!existsSync(config.dataDir)) return null;
  const file = join(config.dataDir, PUBLIC_URL_FILE);
  await writeFile(file, `${publicUrlOf(config)}\n`, { mode: 0o644 });
  return file;
}

/** The address `covgate-admin` builds links on, and where it came from, in words. */
export interface AdminPublicUrl {
  url: string;
  source: string;
}

/**
 * Where `covgate-admin` builds its links: `PUBLIC_URL` of its own environment; else the
 * address the server recorded in the data folder at its last start; else
 * `http://localhost:<PORT>`, which it says is a guess.
 */
export async function adminPublicUrl(config: ServerConfig): Promise<AdminPublicUrl> {
  if (config.publicUrl !== undefined) {
    return { url: config.publicUrl, source: 'PUBLIC_URL of this environment' };
  }
  const file = join(config.dataDir, PUBLIC_URL_FILE);
  let recorded: string | null = null;
  try {
    recorded = (await readFile(file, 'utf8')).trim();
  } catch {
    // no server has started on this data folder: the default below
  }
  if (recorded !== null && HTTP_ORIGIN.test(recorded)) {
    return { url: recorded, source: `recorded by the server at its start in ${file}` };
  }
  return {
    url: publicUrlOf(config),
    source: `PUBLIC_URL is unset and no server has recorded its address in ${file}: start the server first, or set PUBLIC_URL`,
  };
}
