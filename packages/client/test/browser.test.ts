import { existsSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const entry = new URL('../dist/index.js', import.meta.url).pathname;
const built = existsSync(entry);
if (!built) {
  console.warn('[covgate] @covgate/client browser bundle SKIPPED: run `pnpm build` first');
}

async function bundle(format: 'esm' | 'iife') {
  return build({
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format,
    globalName: 'covgate',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
}

describe.skipIf(!built && process.env.CI !== '1')('the ESM build in a browser', () => {
  it('bundles for the browser platform without a Node built-in', async () => {
    const result = await bundle('esm');
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((path) => path.startsWith('node:') || !path.includes('/'))).toEqual([]);
    expect(inputs.some((path) => path.includes('openapi-fetch'))).toBe(true);
  });

  it('runs with only the globals a browser has (no process, Buffer or require)', async () => {
    const result = await bundle('iife');
    const code = result.outputFiles[0]?.text ?? '';
    const seen: string[] = [];
    const fetch = async (request: Request) => {
      seen.push(`${request.method} ${request.url} ${request.headers.get('idempotency-key')}`);
      return new Response(JSON.stringify({ error: 'internal error' }), {
        status: 500,
        headers: { 'Content-Type': 'application/json', 'X-Request-ID': 'r-1' },
      });
    };
    const context = {
      fetch,
      Request,
      Response,
      Headers,
      URL,
      URLSearchParams,
      AbortController,
      FormData,
      Blob,
      TextEncoder,
      TextDecoder,
      setTimeout,
      clearTimeout,
      // A page served over plain http (not a secure context) has no randomUUID.
      crypto: { getRandomValues: (array: Uint8Array) => crypto.getRandomValues(array) },
      document: {},
      console,
      Promise,
      Error,
      TypeError,
      result: undefined as unknown,
    };
    runInNewContext(
      `${code}
      result = covgate
        .createCovgateClient({ baseUrl: 'https://covgate.example.com', retry: { minDelayMs: 1 } })
        .createExecution({ body: { repo: 'web', branch: 'main', coverage: 1 } })
        .then(() => 'resolved', (error) => [error instanceof covgate.CovgateApiError, error.message]);`,
      context,
    );
    expect(await context.result).toEqual([true, '500 internal error (request r-1)']);
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(1);
    expect(seen[0]).toMatch(
      /^POST https:\/\/covgate\.example\.com\/v1\/executions [0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
