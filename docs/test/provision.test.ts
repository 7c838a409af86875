import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run } from '../../test/support/processes.js';

// The "Provisioning from code" sample of tokens-and-sessions.md, run as it stands.
const docs = fileURLToPath(new URL('../', import.meta.url));
const built = existsSync(join(docs, '..', 'packages', 'core', 'dist', 'index.js'));
if (!built) console.warn('[covgate] provisioning sample SKIPPED: run `pnpm build` first');

describe.skipIf(!built && process.env.CI !== '1')('provisioning sample', () => {
  it('is included by the page', async () => {
    const page = await readFile(join(docs, 'tokens-and-sessions.md'), 'utf8');
    expect(page).toContain('<<< @/snippets/provision.mjs{js}');
  });

  it('makes the owner session and a token that posts a run', async () => {
    const result = await run(process.execPath, [join(docs, 'snippets', 'provision.mjs')], {
      cwd: docs,
      env: { PATH: process.env.PATH, SESSION_SECRET: 'provision-sample-secret-0123456789abcdef' },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.slice(0, 3).map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
      '[audit] member.add',
      '[audit] session.create',
      '[audit] token.create',
    ]);
    expect(lines[3]).toBe('{"role":"owner","status":201}');
    expect(JSON.parse(lines[4] as string)).toMatchObject({ path: '/v1/executions', status: 201 });
  });
});
