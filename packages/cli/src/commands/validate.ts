import { readApiToken } from '../credentials.js';
import type { Io } from '../io.js';
import { askService, serviceUrl } from '../service.js';

/** `covgate validate`: checks `COVGATE_TOKEN` with the service and prints its organisation and scopes. */
export async function validate(
  options: { url?: string; json: boolean },
  io: Io,
  version: string,
): Promise<number> {
  const url = serviceUrl(options.url, io.env);
  const token = await readApiToken(io.env);
  const answer = await askService(io, url, token, version, (client) =>
    client.validateToken({ body: {} }),
  );
  if (options.json) {
    io.stdout.write(`${JSON.stringify(answer)}\n`);
  } else {
    const grace = answer.expires_at ? `, valid until ${answer.expires_at} (rotated)` : '';
    io.stdout.write(
      `valid: token ${answer.token_id} of organisation ${answer.org}, scopes ${answer.scopes.join(', ') || '(none)'}${grace}\n`,
    );
  }
  return 0;
}
