import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { covgateIn } from './in-process.js';
import { service } from './in-process-service.js';
import { runC8, writeSampleProject } from './support.js';

// The project branch rule (issue 43) from the CLI: a real c8 (node --test) lcov report posted
// to an in-process service with --branch-target, judged by the service; and the rule failing
// closed on a report without branch data, before anything is posted.

describe('the branch rule from the CLI', { timeout: 120_000 }, () => {
  let dir: string;

  beforeAll(async () => {
    dir = await writeSampleProject({ coverClassify: true });
    await runC8(dir);
    await writeFile(
      join(dir, 'lines-only.info'),
      'SF:src/shapes.mjs\nDA:1,1\nDA:2,0\nend_of_record\n',
    );
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const report = (
    s: Awaited<ReturnType<typeof service>>,
    args: string[],
    env: Record<string, string> = {},
  ) =>
    covgateIn(
      dir,
      ['report', '--repo', 'web', '--branch', 'main', ...args],
      {
        PATH: process.env.PATH,
        HOME: dir,
        COVGATE_TOKEN: s.token,
        COVGATE_URL: 'http://covgate.test',
        NO_COLOR: '1',
        ...env,
      },
      s.fetch,
    );

  it('fails a run whose branch coverage is below --branch-target, and passes it at the figure', async () => {
    const s = await service();
    const first = await report(s, ['--report', 'coverage/lcov.info', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const { branches } = s.sent[0] as { branches: { covered: number; total: number } };
    expect(branches.covered).toBeLessThan(branches.total);
    const percent = Math.floor((branches.covered * 10_000) / branches.total) / 100;

    const summaryFile = join(dir, 'step-summary.md');
    await writeFile(summaryFile, '');
    const failed = await report(s, ['--report', 'coverage/lcov.info', '--branch-target', '100'], {
      GITHUB_STEP_SUMMARY: summaryFile,
    });
    expect(failed.code, failed.stderr).toBe(1);
    const summary = await readFile(summaryFile, 'utf8');
    expect(summary).toContain(
      `\n**Branches:** ${percent.toFixed(2)}% (${branches.covered} / ${branches.total} branches), floor 100.00%: missed (branch rule)\n`,
    );
    expect((s.sent[1] as { branch_target: number }).branch_target).toBe(100);
    expect(failed.stderr).toContain(
      `covgate: Failed by the branch rule: ${percent.toFixed(2)}% of branches are covered, below the floor of 100.00%.`,
    );
    expect(failed.stdout).toContain(
      '; failed by the branch rule (branch coverage below its floor)',
    );

    const met = await report(s, [
      '--report',
      'coverage/lcov.info',
      '--branch-target',
      String(percent),
      '--json',
    ]);
    expect(met.code, met.stderr).toBe(0);
    expect(JSON.parse(met.stdout)).toMatchObject({
      outcome: 'pass',
      branch_target: { target: percent, passed: true },
    });
  });

  it('exits 2 naming the report and its format when the report has no branch data, posting nothing', async () => {
    const s = await service();
    const result = await report(s, ['--report', 'lines-only.info', '--branch-target', '70']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'covgate: lines-only.info (lcov): 1 of 2 lines in 1 file, 50.00%\n' +
        'covgate: the branch rule (target 70%) needs branch data, but no report carries any: lines-only.info (lcov). Measure branches (coverage.py needs --branch; c8, nyc, Jest and Vitest write them; a Go profile has none) or remove the branch target\n',
    );
    expect(s.sent).toEqual([]);
  });
});
