import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../scripts/generate.mjs', import.meta.url));
const generated = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));

function check(output: string) {
  // A hang would block the worker (the call is synchronous): it is killed after a minute.
  return spawnSync(process.execPath, [script, '--check', '--output', output], {
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('generated OpenAPI types', () => {
  it('are what openapi-typescript makes of docs/openapi.yaml today', () => {
    const result = check(generated);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('are reported stale when they differ from the document', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'covgate-client-gen-'));
    try {
      const stale = join(dir, 'openapi.ts');
      const current = await readFile(generated, 'utf8');
      const edited = current.replace('"/health/ready": {', '"/health/live": {');
      expect(edited).not.toBe(current);
      await writeFile(stale, edited);
      const result = check(stale);
      expect(result.status).toBe(1);
      expect(result.stderr).toBe(
        `${stale} is stale against docs/openapi.yaml: run \`pnpm --filter @covgate/client generate\`\n`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
