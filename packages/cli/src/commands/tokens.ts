import type { CovgateClient, Token } from '@covgate/client';
import type { Io } from '../io.js';
import { askService } from '../service.js';
import { sessionCredential } from './session.js';

interface Common {
  url?: string;
  json: boolean;
}

async function withClient<T>(
  options: Common,
  io: Io,
  version: string,
  call: (client: CovgateClient) => Promise<T>,
): Promise<T> {
  const { url, session } = await sessionCredential(io, options.url);
  return askService(io, url, session, version, call);
}

/** A table of tokens, one per line, for people. */
export function tokenTable(tokens: readonly Token[]): string {
  const rows = [['ID', 'NAME', 'STATUS', 'SCOPES', 'CREATED', 'LAST USED']];
  for (const t of tokens) {
    rows.push([
      t.id,
      t.name,
      t.status,
      t.scopes.join(',') || '-',
      t.created_at,
      t.last_used_at ?? 'never',
    ]);
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `covgate tokens list`. */
export async function listTokens(options: Common, io: Io, version: string): Promise<number> {
  const { tokens } = await withClient(options, io, version, (c) => c.listTokens());
  io.stdout.write(
    options.json
      ? `${JSON.stringify({ tokens })}\n`
      : `${tokens.length === 0 ? 'no tokens' : tokenTable(tokens)}\n`,
  );
  return 0;
}

/** `covgate tokens create NAME`: prints the secret, which the service shows only this once. */
export async function createToken(
  name: string,
  options: Common,
  io: Io,
  version: string,
): Promise<number> {
  const created = await withClient(options, io, version, (c) => c.createToken({ body: { name } }));
  if (options.json) {
    io.stdout.write(`${JSON.stringify(created)}\n`);
  } else {
    io.stderr.write(
      `covgate: created token ${created.id} (${created.name}, scopes ${created.scopes.join(', ')}); its secret is shown once, store it now:\n`,
    );
    io.stdout.write(`${created.secret}\n`);
  }
  return 0;
}

/** `covgate tokens rotate ID [--grace SECONDS]`: prints the new secret. */
export async function rotateToken(
  id: string,
  options: Common & { grace?: number },
  io: Io,
  version: string,
): Promise<number> {
  const rotated = await withClient(options, io, version, (c) =>
    c.rotateToken({
      id,
      ...(options.grace !== undefined ? { body: { grace_period_seconds: options.grace } } : {}),
    }),
  );
  if (options.json) {
    io.stdout.write(`${JSON.stringify(rotated)}\n`);
  } else {
    const fate =
      rotated.old_token_status === 'revoked'
        ? 'is revoked now'
        : `stays valid until ${rotated.grace_period_ends_at}`;
    io.stderr.write(
      `covgate: token ${rotated.old_token_id} ${fate}; the new token ${rotated.id}'s secret is shown once:\n`,
    );
    io.stdout.write(`${rotated.secret}\n`);
  }
  return 0;
}

/** `covgate tokens revoke ID`. */
export async function revokeToken(
  id: string,
  options: Common,
  io: Io,
  version: string,
): Promise<number> {
  await withClient(options, io, version, (c) => c.revokeToken({ id }));
  if (options.json) io.stdout.write(`${JSON.stringify({ revoked: id })}\n`);
  else io.stderr.write(`covgate: token ${id} revoked\n`);
  return 0;
}
