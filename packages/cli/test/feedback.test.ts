import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { covgateIn } from './in-process.js';
import { service } from './in-process-service.js';

// What the service decided about the run's statuses and comment (issue 41, "why nothing was
// posted"), as the ingest answer says: printed under --verbose and kept in --json.

const LCOV = 'SF:src/a.js\nDA:1,1\nDA:2,0\nLF:2\nLH:1\nend_of_record\n';
const HEAD = 'c'.repeat(40);

describe('the feedback decisions after posting', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'covgate-feedback-'));
    await writeFile(join(dir, 'lcov.info'), LCOV);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const report = (s: Awaited<ReturnType<typeof service>>, extra: string[]) =>
    covgateIn(
      dir,
      ['report', '--repo', 'web', '--branch', 'main', '--report', 'lcov.info', ...extra],
      {
        PATH: process.env.PATH,
        HOME: dir,
        COVGATE_TOKEN: s.token,
        COVGATE_URL: 'http://covgate.test',
        NO_COLOR: '1',
      },
      s.fetch,
    );

  it('says under --verbose that nothing is posted for a repository without a link', async () => {
    const s = await service();
    const result = await report(s, ['--commit', HEAD, '--verbose']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'covgate: feedback: nothing is posted: the repository is not linked to a code host (docs: required checks, "Why nothing was posted")\n',
    );
  });

  it('lists each status and the comment of a linked repository, and keeps them in --json', async () => {
    const s = await service();
    await s.link('web', 'octo/web');
    const verbose = await report(s, ['--commit', 'abc1234', '--verbose']);
    expect(verbose.code, verbose.stderr).toBe(0);
    const short = 'not sent: the run names an abbreviated commit id; a status needs the full id';
    expect(verbose.stderr).toContain(
      [
        'covgate: feedback to GitHub octo/web (sent by the service after this run; its page shows when):',
        `covgate:   covgate/project: ${short}`,
        `covgate:   covgate/patch: ${short}`,
        'covgate:   comment: not sent: the run names no pull request',
        '',
      ].join('\n'),
    );
    const json = await report(s, ['--commit', HEAD, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const { feedback } = JSON.parse(json.stdout) as { feedback: unknown };
    expect(feedback).toEqual({
      link: { host: 'github', repository: 'octo/web' },
      commit: 'full',
      pull_request: null,
      items: [
        {
          kind: 'status_project',
          name: 'covgate/project',
          queued: true,
          reason: null,
          message: 'queued for GitHub octo/web',
        },
        {
          kind: 'status_patch',
          name: 'covgate/patch',
          queued: false,
          reason: 'no_patch',
          message: 'not sent: the run sent no patch (pushes have none)',
        },
        {
          kind: 'comment',
          name: 'comment',
          queued: false,
          reason: 'no_pull_request',
          message: 'not sent: the run names no pull request',
        },
      ],
    });
  });
});
