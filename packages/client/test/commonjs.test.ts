import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { run } from '../../../test/support/processes.js';

const cjs = new URL('../dist/index.cjs', import.meta.url).pathname;
const built = existsSync(cjs);
if (!built)
  console.warn('[covgate] @covgate/client CommonJS build SKIPPED: run `pnpm build` first');

// What a CommonJS file of a user runs: `require('@covgate/client')`, then real calls.
const SCRIPT = `
const { createCovgateClient, CovgateApiError } = require(process.argv[1]);
const answers = [
  new Response('{"status":"ok"}', { status: 200, headers: { 'Content-Type': 'application/json' } }),
  new Response('{"error":"invalid token"}', {
    status: 401,
    headers: { 'Content-Type': 'application/json', 'X-Request-ID': 'req-1' },
  }),
];
const client = createCovgateClient({
  baseUrl: 'https://covgate.example.com/',
  token: 'cvg_x',
  fetch: async (request) => {
    console.log(request.method, request.url, request.headers.get('authorization'));
    return answers.shift();
  },
});
(async () => {
  console.log(JSON.stringify(await client.getHealth()));
  try {
    await client.validateToken();
  } catch (error) {
    console.log(error instanceof CovgateApiError, error.message);
  }
  console.log(client.loginUrl({ codeHost: 'github' }));
})();
`;

describe.skipIf(!built && process.env.CI !== '1')('the CommonJS build', () => {
  it('loads with require() and makes calls through openapi-fetch', async () => {
    const { code, stdout, stderr } = await run(process.execPath, ['-e', SCRIPT, cjs], {
      env: process.env,
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.trimEnd().split('\n')).toEqual([
      'GET https://covgate.example.com/health Bearer cvg_x',
      '{"status":"ok"}',
      'POST https://covgate.example.com/v1/auth/validate Bearer cvg_x',
      'true 401 invalid token (request req-1)',
      'https://covgate.example.com/auth/github',
    ]);
  });
});
