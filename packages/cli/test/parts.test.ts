import { createTestApi } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import { parseExpectParts, partFromCi } from '../src/parts/ci-part.js';
import { covgateIn } from './in-process.js';

describe('the part of a run from CI', () => {
  it('names GitLab parallel jobs shard-i-of-n and expects n of them', () => {
    expect(partFromCi({ GITLAB_CI: 'true', CI_NODE_INDEX: '2', CI_NODE_TOTAL: '4' })).toEqual({
      part: 'shard-2-of-4',
      expectCount: 4,
    });
    expect(partFromCi({ GITLAB_CI: 'true', CI_NODE_INDEX: '1', CI_NODE_TOTAL: '1' })).toBe(
      undefined,
    );
    expect(partFromCi({ GITLAB_CI: 'true', CI_NODE_INDEX: '5', CI_NODE_TOTAL: '4' })).toBe(
      undefined,
    );
  });

  it('names a GitHub matrix job from COVGATE_MATRIX, and makes no part of GITHUB_JOB alone', () => {
    expect(
      partFromCi({
        GITHUB_ACTIONS: 'true',
        GITHUB_JOB: 'test',
        COVGATE_MATRIX: '{"os":"ubuntu-latest","node":22}',
      }),
    ).toEqual({ part: 'test-22-ubuntu-latest' });
    expect(partFromCi({ GITHUB_ACTIONS: 'true', GITHUB_JOB: 'test' })).toBe(undefined);
    expect(partFromCi({ GITHUB_ACTIONS: 'true', COVGATE_MATRIX: 'not json' })).toBe(undefined);
  });

  it.each([
    ['4', 4],
    ['unit,integration', ['unit', 'integration']],
    ['0', undefined],
    ['unit,unit', undefined],
    ['a b', undefined],
  ])('reads --expect-parts %s', (value, expected) => {
    expect(parseExpectParts(value)).toEqual(expected);
  });
});

/** A report of `src/a.js`, lines 1-4, `hits` the lines that ran. */
const lcov = (hits: number[]) =>
  `TN:\nSF:src/a.js\n${[1, 2, 3, 4].map((line) => `DA:${line},${hits.includes(line) ? 1 : 0}`).join('\n')}\nLF:4\nLH:${hits.length}\nend_of_record\n`;

describe('covgate report --part', () => {
  async function givenService() {
    const service = createTestApi();
    const org = await service.createOrganisation();
    const { secret } = await service.insertToken(org);
    const fetcher = ((input: RequestInfo | URL, init?: RequestInit) =>
      service.api.handle(new Request(input, init))) as typeof fetch;
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'covgate-parts-'));
    const report = async (name: string, hits: number[]) => {
      await writeFile(join(dir, `${name}.info`), lcov(hits));
      return `${name}.info`;
    };
    const run = (...args: string[]) =>
      covgateIn(
        dir,
        ['report', '--repo', 'web', '--branch', 'main', '--commit', 'abcdef1', ...args],
        { COVGATE_TOKEN: secret, COVGATE_URL: 'http://covgate.test', NO_COLOR: '1' },
        fetcher,
      );
    return { run, report, service, secret, dir };
  }

  it('exits 0 and says the verdict is pending while parts are missing', async () => {
    const { run, report } = await givenService();
    const unit = await run(
      '--report',
      await report('unit', [1]),
      '--part',
      'unit',
      '--expect-parts',
      'unit,e2e',
    );
    expect(unit).toEqual({
      code: 0,
      stdout: 'pending web@main at abcdef1: part unit recorded; 1 of 2 parts, missing e2e\n',
      stderr: [
        'covgate: unit.info (lcov): 1 of 4 lines in 1 file, 25.00%',
        'covgate: the verdict is pending until every part has arrived; exit 0 (--wait <seconds> waits for it)',
        '',
      ].join('\n'),
    });
    const e2e = await run('--report', await report('e2e', [2, 3]), '--part', 'e2e', '--json');
    expect(e2e.code).toBe(0);
    expect(JSON.parse(e2e.stdout)).toMatchObject({ outcome: 'pass', coverage: 75 });
  });

  it('waits with --wait for the verdict, and fails when it stays pending', async () => {
    const { run, report } = await givenService();
    const waited = await run(
      '--report',
      await report('unit', [1]),
      '--part',
      'unit',
      '--expect-parts',
      '2',
      '--wait',
      '5',
    );
    expect(waited.code).toBe(1);
    expect(waited.stderr).toContain(
      'covgate: the verdict of web@main is still pending after 5 s: the gate fails\n',
    );
  });

  it('sends the policy’s expected parts and carryforward with a part, the flag winning', async () => {
    const { run, report, dir } = await givenService();
    const { writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    await writeFile(
      join(dir, 'covgate.yml'),
      'parts:\n  expect: [unit, integration]\n  carryforward: [integration]\n',
    );
    const sent = async (...args: string[]) => {
      const answer = await run(
        '--report',
        await report('unit', [1]),
        '--dry-run',
        '--json',
        ...args,
      );
      expect(answer.code).toBe(0);
      const { part, expect_parts, carryforward } = JSON.parse(answer.stdout).request.body;
      return { part, expect_parts, carryforward };
    };
    expect(await sent('--part', 'unit')).toEqual({
      part: 'unit',
      expect_parts: ['unit', 'integration'],
      carryforward: ['integration'],
    });
    expect(await sent('--part', 'unit', '--expect-parts', '3')).toEqual({
      part: 'unit',
      expect_parts: 3,
      carryforward: ['integration'],
    });
    // A run that is not a part sends neither.
    expect(await sent()).toEqual({});
  });

  it('refuses --expect-parts without a part', async () => {
    const { run, report } = await givenService();
    const refused = await run('--report', await report('unit', [1]), '--expect-parts', '2');
    expect(refused).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'covgate: --expect-parts needs --part (or a part CI names: GitLab parallel, COVGATE_MATRIX)\n',
    });
  });

  it('names a part carried forward when covgate finish judges the commit', async () => {
    const { run, report, service, secret } = await givenService();
    const settings = await service.request('/v1/repos/settings', {
      method: 'PATCH',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ repo: 'web', carryforward_parts: ['e2e'] }),
    });
    expect(settings.status).toBe(200);
    const expectBoth = ['--expect-parts', 'unit,e2e'];
    await run('--report', await report('unit', [1]), '--part', 'unit', ...expectBoth);
    await run('--report', await report('e2e', [2, 3]), '--part', 'e2e', ...expectBoth);
    service.clock.advance(2 * 86_400 * 1000);
    const next = ['--commit', 'abcdef2', '--part', 'unit', ...expectBoth];
    expect((await run('--report', await report('unit', [1]), ...next)).code).toBe(0);
    const fetcher = ((input: RequestInfo | URL, init?: RequestInit) =>
      service.api.handle(new Request(input, init))) as typeof fetch;
    const finished = await covgateIn(
      '/',
      ['finish', '--repo', 'web', '--commit', 'abcdef2'],
      { COVGATE_TOKEN: secret, COVGATE_URL: 'http://covgate.test', NO_COLOR: '1' },
      fetcher,
    );
    // e2e's lines 2-3 from the base branch's latest complete report: 3 of 4, as before.
    expect(finished).toEqual({
      code: 0,
      stdout:
        'pass web@main at abcdef2: coverage 75.00%, delta 0.00; 1 parts merged; e2e carried from abcdef1, 2 days old\n',
      stderr: '',
    });
  });

  it('closes a commit with covgate finish, failing it when an expected part is missing', async () => {
    const { run, report, service, secret } = await givenService();
    await run(
      '--report',
      await report('unit', [1]),
      '--part',
      'unit',
      '--expect-parts',
      'unit,e2e',
    );
    const fetcher = ((input: RequestInfo | URL, init?: RequestInit) =>
      service.api.handle(new Request(input, init))) as typeof fetch;
    const finished = await covgateIn(
      '/',
      ['finish', '--repo', 'web', '--commit', 'abcdef1'],
      { COVGATE_TOKEN: secret, COVGATE_URL: 'http://covgate.test', NO_COLOR: '1' },
      fetcher,
    );
    expect(finished).toEqual({
      code: 1,
      stdout: 'fail web@main at abcdef1: coverage 25.00%, delta 0.00; incomplete: missing e2e\n',
      stderr: '',
    });
  });
});
