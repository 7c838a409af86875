import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig } from '../src/credentials.js';
import { covgateIn } from './in-process.js';

// Which service and which session `covgate tokens list` uses, from the flag, the environment
// and what `covgate login` stored.
let dir: string;
const SAVED = { url: 'https://saved.example', session: `cvgs_${'1'.repeat(64)}` };
const EXPORTED = `cvgs_${'2'.repeat(64)}`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'covgate-cli-session-'));
  await writeConfig({ COVGATE_CONFIG_DIR: join(dir, 'saved') }, SAVED);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** `covgate tokens list` with `env`: where its request went and with which credential. */
async function listTokens(env: NodeJS.ProcessEnv, flags: string[] = []) {
  const requests: { url: string; authorization: string | null }[] = [];
  const result = await covgateIn(
    dir,
    ['tokens', 'list', '--json', ...flags],
    env,
    async (input, init) => {
      const request = new Request(input, init);
      requests.push({ url: request.url, authorization: request.headers.get('authorization') });
      return Response.json({ tokens: [] });
    },
  );
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return requests;
}

describe('the service and session of the people commands', () => {
  const withSaved = () => ({ COVGATE_CONFIG_DIR: join(dir, 'saved') });

  it('uses the saved URL and session after covgate login', async () => {
    expect(await listTokens(withSaved())).toEqual([
      { url: 'https://saved.example/v1/tokens', authorization: `Bearer ${SAVED.session}` },
    ]);
  });

  it('an exported COVGATE_SESSION replaces the saved session, not the saved URL', async () => {
    expect(await listTokens({ ...withSaved(), COVGATE_SESSION: EXPORTED })).toEqual([
      { url: 'https://saved.example/v1/tokens', authorization: `Bearer ${EXPORTED}` },
    ]);
  });

  it('takes the URL from --url, else COVGATE_URL, else the saved one', async () => {
    const env = { ...withSaved(), COVGATE_SESSION: EXPORTED, COVGATE_URL: 'https://env.example' };
    expect(await listTokens(env)).toEqual([
      { url: 'https://env.example/v1/tokens', authorization: `Bearer ${EXPORTED}` },
    ]);
    expect(await listTokens(env, ['--url', 'https://flag.example'])).toEqual([
      { url: 'https://flag.example/v1/tokens', authorization: `Bearer ${EXPORTED}` },
    ]);
  });

  it('without a login, an exported session goes to COVGATE_URL, else the default service', async () => {
    const none = { COVGATE_CONFIG_DIR: join(dir, 'none'), COVGATE_SESSION: EXPORTED };
    expect(await listTokens(none)).toEqual([
      { url: 'http://localhost:8080/v1/tokens', authorization: `Bearer ${EXPORTED}` },
    ]);
  });
});
