import type { Baseline, FileLineCounts } from '@covgate/client';
import { describe, expect, it } from 'vitest';
import { commitUrl, isGitlabUrl, pullRequestLabel, pullRequestUrl } from '../app/src/code-host.js';
import {
  CHILDREN_PAGE,
  indexFolders,
  nameOf,
  parentOf,
  visibleRows,
} from '../app/src/folder-tree.js';
import { lineRows, missedChangedRanges, rangeText } from '../app/src/line-view.js';
import { parseRoute, pathOf } from '../app/src/router.js';
import {
  baselineChoice,
  formatFileChange,
  formatLines,
  formatPercent,
  formatPoints,
  percentOf,
} from '../app/src/run-format.js';
import type { FileChange, TreeFolder } from '../app/src/run-types.js';

const BASELINE: Baseline = {
  id: 'exe_base',
  coverage: 85,
  branch: 'main',
  commit: 'a'.repeat(40),
  created_at: '2026-11-20T10:00:00Z',
};

describe('code-host links', () => {
  it('links commits and pull requests with GitHub paths, trailing slash or not', () => {
    expect(commitUrl('https://github.com/acme/api', 'abc123')).toBe(
      'https://github.com/acme/api/commit/abc123',
    );
    expect(pullRequestUrl('https://github.com/acme/api/', 12)).toBe(
      'https://github.com/acme/api/pull/12',
    );
    expect(pullRequestLabel('https://github.com/acme/api', 12)).toBe('#12');
  });

  it('links GitLab hosts (any host name containing gitlab) with /-/ paths', () => {
    expect(isGitlabUrl('https://gitlab.acme.dev/group/sub/api')).toBe(true);
    expect(isGitlabUrl('https://code.acme.dev/group/api')).toBe(false);
    expect(commitUrl('https://gitlab.com/group/api', 'abc123')).toBe(
      'https://gitlab.com/group/api/-/commit/abc123',
    );
    expect(pullRequestUrl('https://gitlab.com/group/api', 7)).toBe(
      'https://gitlab.com/group/api/-/merge_requests/7',
    );
    expect(pullRequestLabel('https://gitlab.com/group/api', 7)).toBe('!7');
  });

  it('makes no link without a URL or from a URL that is not http(s)', () => {
    expect(commitUrl(null, 'abc')).toBeNull();
    expect(pullRequestUrl(null, 1)).toBeNull();
    expect(commitUrl('javascript:alert(1)', 'abc')).toBeNull();
    expect(pullRequestUrl('not a url', 1)).toBeNull();
    expect(pullRequestLabel(null, 3)).toBe('#3');
  });
});

describe('run figures', () => {
  it('shows percents with two decimals and a dash for nothing coverable', () => {
    expect(formatPercent(84.1)).toBe('84.10%');
    expect(formatPercent(100)).toBe('100.00%');
    expect(formatPercent(null)).toBe('—');
  });

  it('signs changes in points', () => {
    expect(formatPoints(1.25)).toBe('+1.25 pts');
    expect(formatPoints(-3.5)).toBe('-3.50 pts');
    expect(formatPoints(0)).toBe('0.00 pts');
  });

  it('counts lines with separators and truncates a file’s percent like the API', () => {
    expect(formatLines(12345, 50000)).toBe('12,345 / 50,000');
    expect(percentOf(2, 3)).toBe(66.66);
    expect(percentOf(1, 1)).toBe(100);
    expect(percentOf(0, 0)).toBeNull();
  });

  it('says a file was added or removed instead of a change', () => {
    const file = (over: Partial<FileChange>): FileChange => ({
      path: 'a.ts',
      covered: 1,
      coverable: 2,
      percent: 50,
      baseline_covered: 2,
      baseline_coverable: 2,
      baseline_percent: 100,
      change: -50,
      ...over,
    });
    expect(formatFileChange(file({}))).toBe('-50.00 pts');
    expect(
      formatFileChange(
        file({
          baseline_covered: null,
          baseline_coverable: null,
          baseline_percent: null,
          change: null,
        }),
      ),
    ).toBe('new file');
    expect(
      formatFileChange(file({ covered: null, coverable: null, percent: null, change: null })),
    ).toBe('removed');
  });

  it('says how the baseline was chosen', () => {
    expect(baselineChoice({ ...BASELINE, selected_by: 'base_commit' })).toBe(
      'the main run at the merge base',
    );
    expect(baselineChoice({ ...BASELINE, selected_by: 'latest' })).toBe(
      'the latest passing main run (none at the merge base)',
    );
    expect(baselineChoice(BASELINE)).toBe('the latest passing main run');
  });
});

describe('folder tree', () => {
  const folder = (path: string, covered: number, coverable: number, files: number): TreeFolder => ({
    path,
    covered,
    coverable,
    percent: percentOf(covered, coverable),
    files,
  });
  const tree = [
    folder('', 9, 14, 4),
    folder('lib/', 1, 2, 1),
    folder('src/', 7, 10, 2),
    folder('src/util/', 3, 4, 1),
    folder('vendor/', 1, 2, 1),
  ];
  const files: FileLineCounts[] = [
    { path: 'README.md', covered: 0, coverable: 0 },
    { path: 'lib/a.js', covered: 1, coverable: 2 },
    { path: 'src/main.ts', covered: 4, coverable: 6 },
    { path: 'src/util/x.ts', covered: 3, coverable: 4 },
    { path: 'vendor/', covered: 1, coverable: 2 },
  ];
  const shape = (rows: ReturnType<typeof visibleRows>) =>
    rows.map((row) => `${'  '.repeat(row.level - 1)}${row.kind}:${row.path}`);

  it('names parents and last segments', () => {
    expect(parentOf('src/util/x.ts')).toBe('src/util/');
    expect(parentOf('src/util/')).toBe('src/');
    expect(parentOf('README.md')).toBe('');
    expect(parentOf('src/')).toBe('');
    expect(nameOf('src/util/')).toBe('util/');
    expect(nameOf('src/util/x.ts')).toBe('x.ts');
  });

  it('shows the top level first, folders before files, and opens folders on demand', () => {
    const index = indexFolders(tree, files);
    expect(shape(visibleRows(index, new Set()))).toEqual([
      'folder:lib/',
      'folder:src/',
      'folder:vendor/',
      'file:README.md',
    ]);
    expect(shape(visibleRows(index, new Set(['src/', 'src/util/'])))).toEqual([
      'folder:lib/',
      'folder:src/',
      '  folder:src/util/',
      '    file:src/util/x.ts',
      '  file:src/main.ts',
      'folder:vendor/',
      'file:README.md',
    ]);
    const rows = visibleRows(index, new Set(['src/']));
    expect(rows.find((row) => row.path === 'src/main.ts')).toEqual({
      kind: 'file',
      path: 'src/main.ts',
      level: 2,
      covered: 4,
      coverable: 6,
      percent: 66.66,
    });
  });

  it('marks a rolled-up folder, which has no children to open', () => {
    const vendor = visibleRows(indexFolders(tree, files), new Set()).find(
      (row) => row.path === 'vendor/',
    );
    expect(vendor).toMatchObject({ kind: 'folder', rolledUp: true, hasChildren: false });
  });

  it('hangs a path whose folder is not listed under its nearest listed ancestor', () => {
    const index = indexFolders(
      [folder('', 1, 1, 1)],
      [{ path: 'deep/er/f.ts', covered: 1, coverable: 1 }],
    );
    expect(shape(visibleRows(index, new Set()))).toEqual(['file:deep/er/f.ts']);
  });

  it('draws at most a page of a folder’s children, then a line that shows more', () => {
    const many: FileLineCounts[] = Array.from({ length: 50_000 }, (_, n) => ({
      path: `big/f${String(n).padStart(5, '0')}.ts`,
      covered: n % 3,
      coverable: 2,
    }));
    const index = indexFolders([folder('', 0, 0, 50_000), folder('big/', 0, 0, 50_000)], many);
    expect(visibleRows(index, new Set())).toHaveLength(1);
    const open = visibleRows(index, new Set(['big/']));
    expect(open).toHaveLength(1 + CHILDREN_PAGE + 1);
    expect(open.at(-1)).toEqual({
      kind: 'more',
      path: 'big/\u0000more',
      level: 2,
      folder: 'big/',
      hidden: 50_000 - CHILDREN_PAGE,
    });
    const more = visibleRows(index, new Set(['big/']), new Map([['big/', 2 * CHILDREN_PAGE]]));
    expect(more).toHaveLength(1 + 2 * CHILDREN_PAGE + 1);
    expect(more[2 * CHILDREN_PAGE]?.path).toBe(
      `big/f${String(2 * CHILDREN_PAGE - 1).padStart(5, '0')}.ts`,
    );
  });
});

describe('run routes and filters', () => {
  it('routes a run page and keeps filters in the repository page’s query', () => {
    expect(parseRoute('/repos/web/runs/exe_01')).toEqual({
      page: 'run',
      repo: 'web',
      id: 'exe_01',
    });
    expect(parseRoute('/repos/web?branch=feat%2Fx&outcome=fail&component=api')).toEqual({
      page: 'repo',
      repo: 'web',
      filters: { branch: 'feat/x', outcome: 'fail', component: 'api' },
    });
    expect(parseRoute('/repos/web?outcome=bogus&component=')).toEqual({
      page: 'repo',
      repo: 'web',
      filters: { component: '' },
    });
    expect(
      pathOf({ page: 'repo', repo: 'web', filters: { component: 'api', outcome: 'warn' } }),
    ).toBe('/repos/web?outcome=warn&component=api');
    expect(pathOf({ page: 'run', repo: 'a b', id: 'exe_1' })).toBe('/repos/a%20b/runs/exe_1');
    expect(parseRoute('/repos/web/runs/%E0%A4%A')).toEqual({ page: 'not-found' });
  });
});

describe('verdict without a baseline', () => {
  it('shows a patch-rule failure as Fail, a pass as No baseline', async () => {
    const { verdictOf } = await import('../app/src/format.js');
    expect(verdictOf({ outcome: 'fail', baseline: null })).toBe('fail');
    expect(verdictOf({ outcome: 'pass', baseline: null })).toBe('none');
  });
});

describe("a run's file page", () => {
  it('routes /repos/{repo}/runs/{id}/files/{path} with the path as one encoded segment', () => {
    const route = parseRoute('/repos/web/runs/exe_1/files/src%2Fcart%2Fa%20b.ts');
    expect(route).toEqual({ page: 'run-file', repo: 'web', id: 'exe_1', path: 'src/cart/a b.ts' });
    expect(pathOf(route)).toBe('/repos/web/runs/exe_1/files/src%2Fcart%2Fa%20b.ts');
    expect(parseRoute('/repos/web/runs/exe_1/files/%E0%A4%A')).toEqual({ page: 'not-found' });
    expect(parseRoute('/repos/web/runs/exe_1/files/src/a.ts')).toEqual({ page: 'not-found' });
  });

  it('marks each line covered, missed or not coverable, and changed by the patch', () => {
    const lines = {
      execution_id: 'exe_1',
      path: 'a.ts',
      covered: 2,
      coverable: 4,
      covered_lines: [[1, 2]],
      missed_lines: [
        [3, 3],
        [5, 5],
      ],
      patch_lines: [[2, 6]],
      patch_covered: 1,
      patch_coverable: 3,
    };
    const rows = lineRows(lines, 'one\r\ntwo\nthree\n\nfive\nsix\nseven\n');
    expect(rows.map((row) => [row.number, row.state, row.changed, row.text])).toEqual([
      [1, 'covered', false, 'one'],
      [2, 'covered', true, 'two'],
      [3, 'missed', true, 'three'],
      [4, 'none', true, ''],
      [5, 'missed', true, 'five'],
      [6, 'none', true, 'six'],
      [7, 'none', false, 'seven'],
    ]);
    expect(missedChangedRanges(rows).map(rangeText)).toEqual(['3', '5']);
    // Without the source: rows up to the last line the run names.
    expect(lineRows(lines, null).map((row) => [row.number, row.text])).toEqual([
      [1, null],
      [2, null],
      [3, null],
      [4, null],
      [5, null],
      [6, null],
    ]);
    expect(
      missedChangedRanges(
        lineRows({ ...lines, missed_lines: [[3, 5]], covered_lines: [] }, null),
      ).map(rangeText),
    ).toEqual(['3-5']);
  });
});
