import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import type { Io } from '../src/io.js';
import { plural, summaryLine } from '../src/report-lines.js';

// `covgate` in-process with captured streams: usage errors, dry runs and what they print.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'covgate-cli-main-'));
  for (const pkg of ['a', 'b']) {
    await mkdir(join(dir, 'packages', pkg, 'coverage'), { recursive: true });
    await writeFile(
      join(dir, 'packages', pkg, 'coverage', 'lcov.info'),
      'SF:index.js\nDA:1,1\nend_of_record\n',
    );
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function covgate(args: string[], env: NodeJS.ProcessEnv = {}) {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    env: { COVGATE_TOKEN: `cvg_${'1'.repeat(40)}`, ...env },
    cwd: dir,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: Readable.from([]),
    // Nothing here may reach a service.
    fetch: () => Promise.reject(new Error('no request expected')),
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

describe('an unquoted glob after --report', () => {
  // What the shell makes of `--report packages/*/coverage/lcov.info`.
  const expanded = ['--report', 'packages/a/coverage/lcov.info', 'packages/b/coverage/lcov.info'];

  it('report: exits 2 with the hint instead of "too many arguments"', async () => {
    const result = await covgate(['report', '--repo', 'r', '--branch', 'main', ...expanded]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'covgate: unexpected argument packages/b/coverage/lcov.info: --report takes one path; repeat it or quote the glob\n',
    });
  });

  it('run: exits 2 with the hint before running anything, instead of "could not be started (EACCES)"', async () => {
    const result = await covgate([
      'run',
      '--repo',
      'r',
      '--branch',
      'main',
      ...expanded,
      '--',
      'npm',
      'test',
    ]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'covgate: packages/b/coverage/lcov.info is a coverage report, not a test command: --report takes one path; repeat it or quote the glob\n',
    });
  });
});

describe('wording', () => {
  it('says "1 file" and "2 files"', () => {
    expect([plural(1, 'file'), plural(2, 'file'), plural(0, 'file')]).toEqual([
      '1 file',
      '2 files',
      '0 files',
    ]);
    const reports = [{ path: 'coverage/lcov.info', format: 'lcov' as const }];
    expect(summaryLine({ covered: 15, coverable: 26, percent: 57.69, files: 1 }, reports)).toBe(
      'coverage/lcov.info (lcov): 15 of 26 lines in 1 file, 57.69%',
    );
  });
});
