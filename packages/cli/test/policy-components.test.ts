import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepo, type TestRepo } from './git-support.js';
import { covgateIn } from './in-process.js';
import { service } from './in-process-service.js';

// covgate.yml's `components`: one report of the whole repository yields one run per component,
// each equal to the run of a report of that component alone.

const lines = (n: number, prefix: string) =>
  `${Array.from({ length: n }, (_, i) => `${prefix}${i}();`).join('\n')}\n`;
const record = (path: string, hits: number[]) =>
  `SF:${path}\n${hits.map((count, i) => `DA:${i + 1},${count}`).join('\n')}\nend_of_record\n`;

const API = record('services/api/a.js', [1, 1, 1, 0]) + record('libs/shared/s.js', [1, 0]);
const WEB = record('apps/web/w.js', [1, 1, 0, 0, 0, 1]);
const OTHER = record('tools/t.js', [0, 0]);

interface DryRun {
  request: { body: Record<string, unknown> };
  components?: { component: string; request: Record<string, unknown> }[];
}

describe('components by path', () => {
  let repo: TestRepo;

  beforeAll(async () => {
    repo = await createRepo('policy-components');
    await repo.write({
      'covgate.yml':
        'components:\n  api: ["services/api/**", "libs/shared/**"]\n  web: ["apps/web/**"]\n  docs: ["docs/**"]\n',
      'services/api/a.js': lines(2, 'a'),
      'libs/shared/s.js': lines(1, 's'),
      'apps/web/w.js': lines(3, 'w'),
      'tools/t.js': lines(2, 't'),
    });
    await repo.commit('base');
    await repo.git('checkout', '-q', '-b', 'feature');
    await repo.write({
      'services/api/a.js': lines(4, 'a'),
      'libs/shared/s.js': lines(2, 's'),
      'apps/web/w.js': lines(6, 'w'),
      'all.lcov': API + WEB + OTHER,
      'api.lcov': API,
      'web.lcov': WEB,
    });
  });

  afterAll(() => repo?.remove());

  const dryRun = async (args: string[]): Promise<DryRun> => {
    const result = await covgateIn(
      repo.dir,
      ['report', '--repo', 'r', '--branch', 'feature', '--base-branch', 'main', ...args],
      { ...repo.env, COVGATE_URL: 'http://covgate.test' },
    );
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as DryRun;
  };

  it('one report yields the whole run and a run per component, each equal to its own report', async () => {
    const whole = await dryRun(['--report', 'all.lcov', '--dry-run', '--json']);
    expect(whole.request.body).toMatchObject({
      coverage: 50,
      patch: { covered: 2, coverable: 6 },
    });
    expect(whole.request.body).not.toHaveProperty('component');
    // docs has no file in the report: no run, a warning.
    expect(whole.components?.map((c) => c.component)).toEqual(['api', 'web']);
    const api = await dryRun(['--component', 'api', '--report', 'api.lcov', '--dry-run', '--json']);
    const web = await dryRun(['--component', 'web', '--report', 'web.lcov', '--dry-run', '--json']);
    expect(whole.components?.[0]?.request).toEqual(api.request.body);
    expect(whole.components?.[1]?.request).toEqual(web.request.body);
    expect(api.request.body).toMatchObject({
      component: 'api',
      coverage: 66.66,
      patch: { covered: 1, coverable: 3 },
    });
    expect(web.request.body).toMatchObject({
      component: 'web',
      coverage: 50,
      patch: { covered: 1, coverable: 3 },
    });
  });

  it('--component on a component of the policy takes its paths only', async () => {
    const api = await dryRun(['--component', 'api', '--report', 'all.lcov', '--dry-run', '--json']);
    const alone = await dryRun([
      '--component',
      'api',
      '--report',
      'api.lcov',
      '--dry-run',
      '--json',
    ]);
    expect(api.request.body).toEqual(alone.request.body);
  });
});

describe('components by path, posted', () => {
  it('posts the whole run and one per component; --json lists their verdicts', async () => {
    const repo = await createRepo('policy-components-post');
    try {
      await repo.write({
        'covgate.yml': 'components:\n  api: ["api/**"]\n  web: ["web/**"]\n',
        'all.lcov': record('api/a.js', [1, 1]) + record('web/w.js', [1, 0]),
        'api/a.js': lines(2, 'a'),
        'web/w.js': lines(2, 'w'),
      });
      await repo.commit('base');
      const s = await service();
      const result = await covgateIn(
        repo.dir,
        ['report', '--repo', 'web', '--branch', 'main', '--report', 'all.lcov', '--json'],
        { ...repo.env, COVGATE_TOKEN: s.token, COVGATE_URL: 'http://covgate.test' },
        s.fetch,
      );
      expect(result.code, result.stderr).toBe(0);
      expect(s.sent.map((body) => [body.component ?? null, body.coverage])).toEqual([
        [null, 75],
        ['api', 100],
        ['web', 50],
      ]);
      const verdict = JSON.parse(result.stdout);
      expect(verdict).toMatchObject({ coverage: 75, outcome: 'pass' });
      expect(
        verdict.components.map((c: { component: string; coverage: number }) => [
          c.component,
          c.coverage,
        ]),
      ).toEqual([
        ['api', 100],
        ['web', 50],
      ]);
    } finally {
      await repo.remove();
    }
  });
});
