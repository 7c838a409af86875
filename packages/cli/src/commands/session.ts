import { readConfig } from '../credentials.js';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';
import { serviceUrl } from '../service.js';

/**
 * The session and URL of the people's commands (`tokens`): `COVGATE_SESSION` with `--url` /
 * `COVGATE_URL`, else what `covgate login` stored (its URL unless `--url` / `COVGATE_URL`).
 */
export async function sessionCredential(
  io: Io,
  urlFlag: string | undefined,
): Promise<{ url: string; session: string }> {
  const fromEnv = io.env.COVGATE_SESSION?.trim();
  if (fromEnv) return { url: serviceUrl(urlFlag, io.env), session: fromEnv };
  const stored = await readConfig(io.env);
  if (stored) return { url: serviceUrl(urlFlag, io.env, stored.url), session: stored.session };
  throw usageError(
    'not logged in: run `covgate login` (it reads a session token from stdin) or set COVGATE_SESSION',
  );
}
