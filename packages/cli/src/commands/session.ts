import { readConfig } from '../credentials.js';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';
import { serviceUrl } from '../service.js';

/**
 * The session and URL of the people's commands (`tokens`), each taken on its own: the session
 * is `COVGATE_SESSION`, else the one `covgate login` stored; the URL is `--url`, else
 * `COVGATE_URL`, else the one `covgate login` stored, else the default. An exported session
 * thus keeps the stored URL (a session is for the service you logged in to).
 */
export async function sessionCredential(
  io: Io,
  urlFlag: string | undefined,
): Promise<{ url: string; session: string }> {
  const stored = await readConfig(io.env);
  const session = io.env.COVGATE_SESSION?.trim() || stored?.session;
  if (!session) {
    throw usageError(
      'not logged in: run `covgate login` (it reads a session token from stdin) or set COVGATE_SESSION',
    );
  }
  return { url: serviceUrl(urlFlag, io.env, stored?.url), session };
}
