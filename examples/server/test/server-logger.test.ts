import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createApi, createMemoryStore } from '@covgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../test/support/processes.js';
import { loadConfig } from '../src/config.js';
import { apiOptionsFor } from '../src/reference-server.js';
import { createServerLogger, readableLogs } from '../src/server-logger.js';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const built = existsSync(join(dist, 'main.js'));

/** A destination that keeps what the logger wrote. */
function capture(): { stream: Writable; lines: () => string[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line !== ''),
  };
}

/** Runs one unauthenticated request through the server's API options: one `auth.denied` line. */
async function deniedRequest(production: boolean, dataDir: string): Promise<string[]> {
  const out = capture();
  const logger = createServerLogger({ readable: !production, destination: out.stream });
  const config = loadConfig({ COVGATE_DATA_DIR: dataDir });
  const { options, dispose } = await apiOptionsFor(config, createMemoryStore(), logger);
  const api = createApi(options);
  const response = await api.handle(new Request('http://localhost/v1/tokens'), {
    remoteAddress: '192.0.2.7',
  });
  expect(response.status).toBe(401);
  logger.error('[executions] something failed');
  await dispose();
  return out.lines();
}

describe('the reference server log stream', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'covgate-logger-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('in production writes every line as JSON, an audit line being the msg of its line', async () => {
    const lines = await deniedRequest(true, dataDir);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const audit = parsed.filter((line) => String(line.msg).startsWith('[audit]'));
    expect(audit).toEqual([
      {
        level: 30,
        time: expect.any(Number),
        msg: '[audit] auth.denied method=GET path=/v1/tokens reason=missing_token remote=192.0.2.7',
      },
    ]);
    expect(parsed.at(-1)).toMatchObject({ level: 50, msg: '[executions] something failed' });
  });

  it('is readable only in development: NODE_ENV unset, empty or development', () => {
    expect([undefined, '', 'development'].map((value) => readableLogs(value))).toEqual([
      true,
      true,
      true,
    ]);
    expect(['production', 'test', 'staging'].map((value) => readableLogs(value))).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('in development writes readable lines: audit lines exactly as their text, levels above info named', async () => {
    const lines = await deniedRequest(false, dataDir);
    expect(lines).toContain(
      '[audit] auth.denied method=GET path=/v1/tokens reason=missing_token remote=192.0.2.7',
    );
    expect(lines.at(-1)).toBe('ERROR [executions] something failed');
    expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
  });

  it.skipIf(!built)(
    'main.js in production reports a configuration error as one JSON line on stdout',
    async () => {
      const { code, stdout, stderr } = await run(process.execPath, [join(dist, 'main.js')], {
        env: { PATH: process.env.PATH, NODE_ENV: 'production', COVGATE_DATA_DIR: dataDir },
      });
      expect(code).toBe(1);
      expect(stderr).toBe('');
      const lines = stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0] as string) as Record<string, unknown>;
      expect(line.level).toBe(60);
      expect(String(line.msg)).toMatch(
        /^covgate: refusing to start:[\s\S]*SERVICE_TOKEN is required in production/,
      );
    },
  );
});
