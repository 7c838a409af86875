import { createInterface } from 'node:readline';
import { writeConfig } from '../credentials.js';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';
import { askService, serviceUrl } from '../service.js';

/** Reads the session token: one line from a terminal (after a prompt), or all of piped stdin. */
async function readSecret(io: Io): Promise<string> {
  if (io.stdin.isTTY) {
    io.stderr.write('Paste a session token (cvgs_...) and press Enter: ');
    const rl = createInterface({ input: io.stdin, terminal: false });
    for await (const line of rl) {
      rl.close();
      return line.trim();
    }
    return '';
  }
  let text = '';
  for await (const chunk of io.stdin) text += String(chunk);
  return text.trim();
}

/**
 * `covgate login`: reads a session token from stdin, checks it with the service
 * (`GET /v1/session`), and stores it with the URL in the config folder, file mode 0600.
 */
export async function login(
  options: { url?: string; json: boolean },
  io: Io,
  version: string,
): Promise<number> {
  const url = serviceUrl(options.url, io.env);
  const session = await readSecret(io);
  if (!session)
    throw usageError('no session token on stdin: `covgate login < file` or paste it when asked');
  if (/\s/.test(session))
    throw usageError('the session token on stdin must be one word (cvgs_...)');
  const current = await askService(io, url, session, version, (client) =>
    client.getCurrentSession(),
  );
  const file = await writeConfig(io.env, { url, session });
  if (options.json) {
    io.stdout.write(
      `${JSON.stringify({ url, org: current.org, expires_at: current.expires_at, config: file })}\n`,
    );
  } else {
    io.stderr.write(
      `covgate: logged in to ${url} for organisation ${current.org} until ${current.expires_at}; stored in ${file}\n`,
    );
  }
  return 0;
}
