import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batchedLogDestination } from '../../src/logging/batched-log-destination.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'covgate-log-'));
  file = join(dir, 'out.log');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const written = () => readFileSync(file, 'utf8');
const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('batchedLogDestination', () => {
  it('writes the lines of one turn together once the turn ends, in order', async () => {
    const destination = batchedLogDestination(file);
    destination.write('one\n');
    destination.write('two\n');
    expect(written()).toBe('');
    await endOfTurn();
    expect(written()).toBe('one\ntwo\n');
    destination.write('three\n');
    await endOfTurn();
    expect(written()).toBe('one\ntwo\nthree\n');
  });

  it('writes at once when 64 Ki characters are pending', () => {
    const destination = batchedLogDestination(file);
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 63; i++) destination.write(line);
    expect(written()).toBe('');
    destination.write(line);
    expect(written()).toBe(line.repeat(64));
  });

  it('writes pending lines on flushSync and on flush, then calls back', async () => {
    const destination = batchedLogDestination(file);
    destination.write('a\n');
    destination.flushSync();
    expect(written()).toBe('a\n');
    destination.write('b\n');
    const flushed = await new Promise((resolve) => destination.flush(resolve));
    expect(flushed).toBeUndefined();
    expect(written()).toBe('a\nb\n');
  });

  it('carries pino lines as pino wrote them', async () => {
    const logger = pino({ base: null, timestamp: false }, batchedLogDestination(file));
    logger.info({ requestId: 'r1', status: 200 }, 'request');
    logger.warn('careful');
    await endOfTurn();
    expect(written().split('\n')).toEqual([
      '{"level":30,"requestId":"r1","status":200,"msg":"request"}',
      '{"level":40,"msg":"careful"}',
      '',
    ]);
  });

  /** Runs `lines` in a child Node process after opening a destination on the test's file. */
  function runWithDestination(lines: string) {
    const module = fileURLToPath(new URL('../../dist/internal.js', import.meta.url));
    return spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { batchedLogDestination } from ${JSON.stringify(module)};
         const destination = batchedLogDestination(${JSON.stringify(file)});
         ${lines}`,
      ],
      // A hang would block the worker (the call is synchronous): it is killed after a minute.
      { encoding: 'utf8', timeout: 60_000 },
    );
  }

  it('keeps the exit code when the destination cannot be written at exit', () => {
    const child = runWithDestination(
      `destination.write('never written\\n');
       destination.flushSync = () => { throw new Error('EBADF'); };
       process.exit(4);`,
    );
    expect(child.stderr).toBe('');
    expect(child.status).toBe(4);
  });

  it('writes what is pending when the process exits, also after an uncaught exception', () => {
    for (const [ending, status] of [
      ['process.exit(3)', 3],
      ["throw new Error('boom')", 1],
    ] as const) {
      rmSync(file, { force: true });
      const child = runWithDestination(`destination.write('last words\\n');\n${ending};`);
      expect(child.status).toBe(status);
      expect(written()).toBe('last words\n');
    }
  });
});
