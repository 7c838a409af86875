import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '@covgate/test-support/processes';
import { afterAll, describe, expect, it } from 'vitest';

const packages = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'covgate-schema-drift-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Each schema (its columns and the shared index table both build) must be what its shipped
// migrations leave: otherwise the next `pnpm generate` writes a migration nobody meant.
describe.each([
  ['sqlite', 'sqlite'],
  ['mysql', 'mysql'],
])('the %s store', (store, dialect) => {
  it('has a schema its shipped migrations already hold (drizzle-kit generate finds no change)', async () => {
    const dir = join(packages, store);
    const out = join(scratch, store);
    cpSync(join(dir, 'drizzle'), out, { recursive: true });
    const before = readdirSync(out).sort();

    const result = await run(
      join(dir, 'node_modules', '.bin', 'drizzle-kit'),
      [
        'generate',
        `--dialect=${dialect}`,
        '--schema=./src/schema.ts',
        `--out=${relative(dir, out)}`,
      ],
      { cwd: dir, env: process.env, timeoutMs: 60_000 },
    );

    // drizzle-kit exits 0 even when it fails: what it prints is the verdict.
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No schema changes, nothing to migrate');
    expect(readdirSync(out).sort()).toEqual(before);
  });
});
