import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { itReturns } from '@covgate/test-support/value-table';
import { describe, expect, it } from 'vitest';
import { checkoutFilesOf, listCheckoutFiles } from '../src/paths/checkout-files.js';
import { goFilePath, moduleOf, usesOf } from '../src/paths/go-modules.js';
import {
  cleanPath,
  isAbsolutePath,
  isPlainRelative,
  projectRootOf,
  repoPath,
  repoPather,
} from '../src/paths/normalise.js';
import { applyPathMaps, parsePathMap } from '../src/paths/path-map.js';
import { mergeFiles } from '../src/reports/merge.js';
import { parseReport } from '../src/reports/read-report.js';

describe('path cleaning', () => {
  itReturns(cleanPath, '%s is %s', [
    ['src\\lib\\a.js', 'src/lib/a.js'],
    ['./src/./a.js', 'src/a.js'],
    ['src/x/../a.js', 'src/a.js'],
    ['src//a.js', 'src/a.js'],
    ['c:\\build\\repo\\a.cs', 'C:/build/repo/a.cs'],
    ['C:/build/repo/../a.cs', 'C:/build/a.cs'],
    ['file:///home/ci/repo/a%20b.dart', '/home/ci/repo/a b.dart'],
    ['file:///C:/repo/a.js', 'C:/repo/a.js'],
    ['/repo/src/', '/repo/src'],
    ['/', '/'],
    ['.', ''],
  ]);

  it('tells absolute paths from relative ones on every platform', () => {
    expect(['/a', 'C:\\a', 'd:/a', '//server/share/a', 'file:///a'].map(isAbsolutePath)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['a', './a', '../a', 'C:a'].map(isAbsolutePath)).toEqual([false, false, false, false]);
  });
});

describe('repository-relative paths', () => {
  const root = '/home/ci/repo';

  it.each([
    ['index.js', '/home/ci/repo/packages/a', 'packages/a/index.js'],
    ['./src\\x.js', '/home/ci/repo/packages/a', 'packages/a/src/x.js'],
    ['../shared/x.js', '/home/ci/repo/packages/a', 'packages/shared/x.js'],
    ['/home/ci/repo/packages/a/index.js', '/elsewhere', 'packages/a/index.js'],
    ['/app/packages/a/index.js', '/home/ci/repo/packages/a', '/app/packages/a/index.js'],
    ['../../../../../etc/x.js', '/home/ci/repo/packages/a', '/etc/x.js'],
    ['/home/ci/repository/x.js', '/home/ci/repo', '/home/ci/repository/x.js'],
  ])('%s from %s is %s', (path, base, expected) => {
    expect(repoPath(path, base, root)).toBe(expected);
  });

  it('works with Windows roots', () => {
    expect(repoPath('C:\\a\\repo\\src\\x.cs', 'C:/a/repo', 'C:/a/repo')).toBe('src/x.cs');
    expect(repoPath('src\\x.cs', 'C:/a/repo/svc', 'c:\\a\\repo')).toBe('svc/src/x.cs');
  });
});

describe('the quick path for plain relative paths', () => {
  it('takes only paths that need no cleaning', () => {
    expect(['a.js', 'src/a.js', 'a..b/c', '.env/x'].map(isPlainRelative)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(
      ['', '/a', './a', 'a/../b', 'a//b', 'a\\b', 'C:/a', 'file:///a', 'a/', '..', 'x/.'].map(
        isPlainRelative,
      ),
    ).toEqual(Array(11).fill(false));
  });

  it('gives what repoPath gives', () => {
    const paths = [
      'a.js',
      'src/a.js',
      './b.js',
      '../c.js',
      '/r/d.js',
      '/elsewhere/e.js',
      'f\\g.js',
    ];
    for (const base of ['/r', '/r/pkg', '/elsewhere', '/', 'C:/x']) {
      const pather = repoPather(base, '/r');
      for (const path of paths) expect(pather(path)).toBe(repoPath(path, base, '/r'));
    }
  });
});

describe("a report's project root", () => {
  const root = '/r';
  itReturns((report: string) => projectRootOf(report, root), 'of %s is %s', [
    ['/r/coverage/lcov.info', '/r'],
    ['/r/packages/a/coverage/lcov.info', '/r/packages/a'],
    ['/r/coverage/my-app/lcov.info', '/r'],
    ['/r/build/coverage/lcov.info', '/r'],
    ['/r/services/api/build/reports/jacoco/test/jacocoTestReport.xml', '/r/services/api'],
    ['/r/api/target/site/jacoco/jacoco.xml', '/r/api'],
    ['/r/apps/reports/coverage/lcov.info', '/r/apps/reports'],
    ['/r/services/py/coverage.xml', '/r/services/py'],
    ['/r/coverage.out', '/r'],
    ['/elsewhere/coverage/lcov.info', '/elsewhere/coverage'],
  ]);

  it('looks only at folders inside the repository', () => {
    expect(projectRootOf('/ci/build/repo/lcov.info', '/ci/build/repo')).toBe('/ci/build/repo');
    expect(projectRootOf('/ci/build/repo/x/lcov.info', '/ci/build/repo')).toBe('/ci/build/repo/x');
  });
});

describe('the files of a checkout', () => {
  it('has the listed files, files on disk git does not list, and names case-only mismatches', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'covgate-checkout-'));
    await mkdir(join(dir, 'dist'));
    await writeFile(join(dir, 'dist', 'gen.js'), '');
    const files = checkoutFilesOf(['src/a.js', 'src/Util.js', ''], dir);
    expect(['src/a.js', 'dist/gen.js', 'src/b.js', 'src/util.js', ''].map(files.has)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(['src/util.js', 'src/Util.js', 'src/b.js'].map(files.caseOf)).toEqual([
      'src/Util.js',
      undefined,
      undefined,
    ]);
    await rm(dir, { recursive: true });
  });

  it('are not known outside a git checkout', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'covgate-no-git-'));
    expect(await listCheckoutFiles(dir)).toBeUndefined();
    await rm(dir, { recursive: true });
  });
});

describe('--path-map', () => {
  it('parses FROM=TO at the first =, and refuses what is not', () => {
    expect(parsePathMap('/app/=')).toEqual({ from: '/app', to: '' });
    expect(parsePathMap('C:\\ci\\=src/a=b')).toEqual({ from: 'C:/ci', to: 'src/a=b' });
    expect(() => parsePathMap('/app')).toThrow('not FROM=TO');
    expect(() => parsePathMap('=x')).toThrow('FROM is empty');
  });

  it('rewrites whole leading folders with the first map that fits', () => {
    const maps = ['/app=', '/app/lib=vendor', 'example.com/mod=services/go'].map(parsePathMap);
    expect(applyPathMaps('/app/src/x.js', maps)).toBe('src/x.js');
    expect(applyPathMaps('/app/lib/x.js', maps)).toBe('lib/x.js');
    expect(applyPathMaps('/application/x.js', maps)).toBe('/application/x.js');
    expect(applyPathMaps('example.com/mod/x.go', maps)).toBe('services/go/x.go');
    expect(applyPathMaps('src/x.js', maps)).toBe('src/x.js');
  });
});

describe('Go modules', () => {
  it('reads the module path of go.mod and the folders of go.work', () => {
    expect(moduleOf('// x\nmodule example.com/shapes // comment\n\ngo 1.19\n')).toBe(
      'example.com/shapes',
    );
    expect(moduleOf('module "example.com/q"\n')).toBe('example.com/q');
    expect(moduleOf('go 1.19\n')).toBeUndefined();
    expect(usesOf('go 1.22\n\nuse (\n\t./api // the API\n\t"./lib"\n)\nuse ./tools\n')).toEqual([
      './api',
      './lib',
      './tools',
    ]);
  });

  it('joins a file to the folder of the longest module it is in', () => {
    const modules = [
      { path: 'example.com/x/sub', folder: '/r/sub' },
      { path: 'example.com/x', folder: '/r' },
    ];
    expect(goFilePath('example.com/x/sub/a.go', modules)).toBe('/r/sub/a.go');
    expect(goFilePath('example.com/x/b/c.go', modules)).toBe('/r/b/c.go');
    expect(goFilePath('example.com/xy/c.go', modules)).toBeUndefined();
  });
});

describe('clashes', () => {
  it('are files two reports name with different last lines (or counts without lines)', () => {
    const a = parseReport(
      'SF:x.js\nDA:1,1\nDA:5,0\nend_of_record\nSF:y.js\nDA:1,1\nend_of_record\n',
    );
    const b = parseReport(
      'SF:x.js\nDA:1,0\nDA:9,1\nend_of_record\nSF:y.js\nDA:1,0\nend_of_record\n',
    );
    const summary = parseReport('SF:y.js\nLF:4\nLH:1\nend_of_record\n');
    expect(mergeFiles([a, b, summary]).clashes).toEqual([
      { path: 'x.js', reports: [0, 1], last: [5, 9], by: 'line' },
      { path: 'y.js', reports: [0, 2], last: [1, 4], by: 'coverable' },
    ]);
  });

  it('compare Go blocks by their end line', () => {
    const a = parseReport('mode: set\nm/a.go:1.1,3.2 2 1\n');
    const b = parseReport('mode: set\nm/a.go:1.1,3.2 2 0\n');
    const c = parseReport('mode: set\nm/a.go:1.1,7.2 2 0\n');
    expect(mergeFiles([a, b]).clashes).toEqual([]);
    expect(mergeFiles([a, c]).clashes).toEqual([
      { path: 'm/a.go', reports: [0, 1], last: [3, 7], by: 'line' },
    ]);
  });

  it('are not looked for within one report', () => {
    const one = parseReport('SF:x.js\nDA:1,1\nend_of_record\nSF:x.js\nDA:7,1\nend_of_record\n');
    expect(mergeFiles([one]).clashes).toEqual([]);
  });
});
