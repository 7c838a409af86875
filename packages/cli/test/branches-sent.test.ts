import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolAvailable } from './git-support.js';
import { covgateIn } from './in-process.js';
import { service } from './in-process-service.js';
import { runC8, writeSampleProject } from './support.js';

// Branch counts sent with the run (issue 43): a real c8 (node --test) lcov report, posted by
// the CLI to an in-process service; the run's stored branch figure is `lcov --summary`'s.

const lcovTool = toolAvailable('lcov', 'lcov');

/** `lcov --summary`'s branch figures of a tracefile: [covered, total]. */
async function lcovSummaryBranches(path: string): Promise<[number, number]> {
  const { stdout, stderr } = await promisify(execFile)('lcov', [
    '--summary',
    path,
    '--rc',
    'lcov_branch_coverage=1',
  ]);
  const match = /branches\.+: [\d.]+% \((\d+) of (\d+) branches\)/.exec(`${stdout}${stderr}`);
  if (!match) throw new Error(`lcov --summary printed no branch figure:\n${stdout}${stderr}`);
  return [Number(match[1]), Number(match[2])];
}

describe('branch counts sent with the run', { timeout: 120_000 }, () => {
  let dir: string;

  beforeAll(async () => {
    dir = await writeSampleProject({ coverClassify: true });
    await runC8(dir);
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const report = (file: string, s: Awaited<ReturnType<typeof service>>) =>
    covgateIn(
      dir,
      ['report', '--repo', 'web', '--branch', 'main', '--report', file, '--json'],
      {
        PATH: process.env.PATH,
        HOME: dir,
        COVGATE_TOKEN: s.token,
        COVGATE_URL: 'http://covgate.test',
        NO_COLOR: '1',
      },
      s.fetch,
    );

  it.skipIf(!lcovTool)(
    "are stored as the run's branch figure, equal to lcov --summary's",
    async () => {
      const [covered, total] = await lcovSummaryBranches(join(dir, 'coverage', 'lcov.info'));
      // The sample leaves branches untaken: a figure that is not 100 %.
      expect(covered).toBeLessThan(total);
      const s = await service();
      const result = await report('coverage/lcov.info', s);
      expect(result.code, result.stderr).toBe(0);
      const sent = s.sent[0] as {
        branches: unknown;
        files: { path: string; branches?: { covered: number; total: number } }[];
      };
      expect(sent.branches).toEqual({ covered, total });
      const perFile = sent.files.map((file) => file.branches);
      expect(perFile.every((branches) => branches !== undefined)).toBe(true);
      expect(perFile.reduce((sum, b) => sum + (b?.total ?? 0), 0)).toBe(total);
      const id = (JSON.parse(result.stdout) as { execution_id: string }).execution_id;
      const stored = await s.fetch(`http://covgate.test/v1/executions/${id}`, {
        headers: { authorization: `Bearer ${s.token}` },
      });
      const detail = (await stored.json()) as {
        branches: unknown;
        files: { path: string; branches?: unknown }[];
      };
      expect(detail.branches).toEqual({
        covered,
        total,
        percent: Math.floor((covered * 10_000) / total) / 100,
      });
      expect(detail.files.map((file) => file.branches)).toEqual(perFile);
    },
  );

  it('sends nothing new for a report without branch data', async () => {
    await writeFile(
      join(dir, 'lines-only.info'),
      'SF:src/shapes.mjs\nDA:1,1\nDA:2,0\nend_of_record\n',
    );
    const s = await service();
    const result = await report('lines-only.info', s);
    expect(result.code, result.stderr).toBe(0);
    const sent = s.sent[0] as { files: Record<string, unknown>[] };
    expect(sent).not.toHaveProperty('branches');
    expect(sent.files).toEqual([
      { path: 'src/shapes.mjs', covered: 1, coverable: 2, lines: expect.anything() },
    ]);
    const id = (JSON.parse(result.stdout) as { execution_id: string }).execution_id;
    const stored = await s.fetch(`http://covgate.test/v1/executions/${id}`, {
      headers: { authorization: `Bearer ${s.token}` },
    });
    expect(await stored.json()).not.toHaveProperty('branches');
  });
});
