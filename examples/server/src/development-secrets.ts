import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Outside production, a missing `SESSION_SECRET` is generated once and kept in the data
 * folder (mode 0600, the folder 0700 when made here), so sessions survive restarts and the admin command can mint sessions
 * the server accepts. Production refuses to start without it instead.
 */
export async function developmentSessionSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, 'session-secret');
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing.length >= 32) return existing;
  } catch {
    // absent: generated below
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('hex');
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
