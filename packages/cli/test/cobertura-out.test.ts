import { cp, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  covgateFigures,
  createRepo,
  diffCover,
  diffCoverFigures,
  type PatchJson,
  type TestRepo,
  toolAvailable,
} from './git-support.js';
import { covgateIn } from './in-process.js';
import { runC8, writeSampleProject } from './support.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

// One repository holding four projects measured by their real tools: c8 (lcov, run here),
// coverage.py (JSON), Go (cover profile) and JaCoCo (XML), added on a branch, so every line
// they measure is a changed line. covgate merges the four reports into one Cobertura file;
// diff-cover (Debian's), reading only that file, must find the patch covgate finds in the
// original reports, and covgate reading it back must send the same lines.
describe.skipIf(!toolAvailable('diff-cover', 'diff-cover'))(
  'report --cobertura-out of four tools in one repository',
  () => {
    let repo: TestRepo;
    const REPORTS = [
      ['--report', 'web/coverage/lcov.info'],
      ['--report', 'py/coverage.json'],
      ['--report', 'go/coverage.out'],
      ['--report', 'java/target/site/jacoco/jacoco.xml', '--path-prefix', 'java/src'],
    ].flat();
    const TARGET = ['--repo', 'r', '--branch', 'feature', '--base-branch', 'main'];
    let first: { code: number; stdout: string; stderr: string };

    beforeAll(async () => {
      repo = await createRepo('cobertura-out');
      await repo.write({ 'README.md': '# four tools\n' });
      await repo.commit('base');
      await repo.git('checkout', '-q', '-b', 'feature');
      const web = await writeSampleProject({ coverClassify: false });
      await runC8(web);
      await cp(join(web, 'src'), join(repo.dir, 'web', 'src'), { recursive: true });
      await mkdir(join(repo.dir, 'web', 'coverage'), { recursive: true });
      await cp(join(web, 'coverage', 'lcov.info'), join(repo.dir, 'web', 'coverage', 'lcov.info'));
      await cp(
        join(fixtures, 'coverage-py', 'src', 'shapes.py'),
        join(repo.dir, 'py', 'shapes.py'),
      );
      await cp(
        join(fixtures, 'coverage-py', 'src', 'test_shapes.py'),
        join(repo.dir, 'py', 'test_shapes.py'),
      );
      await cp(
        join(fixtures, 'coverage-py', 'coverage.json'),
        join(repo.dir, 'py', 'coverage.json'),
      );
      await cp(join(fixtures, 'go', 'src'), join(repo.dir, 'go'), { recursive: true });
      await cp(join(fixtures, 'go', 'coverage.out'), join(repo.dir, 'go', 'coverage.out'));
      await cp(
        join(fixtures, 'jacoco', 'src', 'example'),
        join(repo.dir, 'java', 'src', 'example'),
        {
          recursive: true,
        },
      );
      await mkdir(join(repo.dir, 'java', 'target', 'site', 'jacoco'), { recursive: true });
      await cp(
        join(fixtures, 'jacoco', 'jacoco.xml'),
        join(repo.dir, 'java', 'target', 'site', 'jacoco', 'jacoco.xml'),
      );
      await repo.commit('four projects');
      first = await covgateIn(
        repo.dir,
        [
          'report',
          ...REPORTS,
          ...TARGET,
          '--cobertura-out',
          'out/coverage.xml',
          '--dry-run',
          '--json',
        ],
        repo.env,
      );
    }, 180_000);

    afterAll(() => repo?.remove());

    const dryRun = (stdout: string) =>
      JSON.parse(stdout) as {
        patch: PatchJson;
        request: { body: { files: { path: string; lines?: string; branches?: unknown }[] } };
      };

    it('writes the file, says so on stderr and posts nothing', async () => {
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toContain(
        'covgate: wrote out/coverage.xml (Cobertura, 5 files, 42 of 85 lines covered)\n',
      );
      const xml = await readFile(join(repo.dir, 'out', 'coverage.xml'), 'utf8');
      expect(xml).toContain('<source>.</source>');
      expect(xml).toContain('filename="java/src/example/shapes/Shapes.java"');
      expect(xml).toContain('filename="go/shapes.go"');
    });

    it("diff-cover on the Cobertura file finds covgate's patch of the four reports, line by line", async () => {
      const reference = await diffCover(repo, ['out/coverage.xml'], 'main');
      const { patch } = dryRun(first.stdout);
      expect(covgateFigures(patch)).toEqual(diffCoverFigures(reference));
      // Every measured line is changed: diff-cover counts the lines the CLI said it wrote.
      expect(reference.total_num_lines).toBe(85);
      expect(reference.total_num_lines - reference.total_num_violations).toBe(42);
      expect(Object.keys(reference.src_stats).sort()).toEqual([
        'go/shapes.go',
        'java/src/example/shapes/Shapes.java',
        'py/shapes.py',
        'py/test_shapes.py',
        'web/src/shapes.mjs',
      ]);
    });

    it('covgate reading the Cobertura file back sends the same files, lines and branches', async () => {
      const again = await covgateIn(
        repo.dir,
        ['report', '--report', 'out/coverage.xml', ...TARGET, '--dry-run', '--json'],
        repo.env,
      );
      expect(again.code, again.stderr).toBe(0);
      const strip = (files: { path: string; lines?: string; branches?: unknown }[]) =>
        files.map(({ path, lines, branches }) => ({ path, lines, branches }));
      expect(strip(dryRun(again.stdout).request.body.files)).toEqual(
        strip(dryRun(first.stdout).request.body.files),
      );
    });
  },
);

/** An Istanbul `coverage-summary.json` entry of `total` lines, `covered` of them covered. */
function summary(total: number, covered: number) {
  const counts = { total, covered, skipped: 0, pct: (covered / total) * 100 };
  return { lines: counts, statements: counts, functions: counts, branches: counts };
}

describe('report --cobertura-out, what it leaves out and refuses', () => {
  let repo: TestRepo;
  const TARGET = ['--repo', 'r', '--branch', 'main', '--commit', 'a'.repeat(40)];

  beforeAll(async () => {
    repo = await createRepo('cobertura-out-edges');
    await repo.write({
      'src/a.js': 'one\ntwo\n',
      'lcov.info': 'SF:src/a.js\nDA:1,1\nDA:2,0\nend_of_record\n',
      'summary/coverage-summary.json': JSON.stringify({
        total: summary(4, 3),
        'src/b.js': summary(4, 3),
      }),
      'taken/README.md': 'a file where a folder is wanted\n',
    });
    await repo.commit('base');
  }, 60_000);

  afterAll(() => repo?.remove());

  it('leaves out a file known by counts only, with a warning naming it', async () => {
    const result = await covgateIn(
      repo.dir,
      [
        'report',
        '--report',
        'lcov.info',
        '--report',
        'summary/coverage-summary.json',
        '--path-prefix',
        '.',
        ...TARGET,
        '--cobertura-out',
        'gl.xml',
        '--dry-run',
      ],
      repo.env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'covgate: wrote gl.xml (Cobertura, 1 file, 1 of 2 lines covered)\n' +
        'covgate: warning: gl.xml leaves out 1 file its report gives by counts only, without lines: src/b.js\n',
    );
    const xml = await readFile(join(repo.dir, 'gl.xml'), 'utf8');
    expect(xml).toContain('filename="src/a.js"');
    expect(xml).not.toContain('src/b.js');
  });

  it('exits 2 naming the path when the file cannot be written', async () => {
    const result = await covgateIn(
      repo.dir,
      [
        'report',
        '--report',
        'lcov.info',
        ...TARGET,
        '--cobertura-out',
        'taken/README.md/x.xml',
        '--dry-run',
      ],
      repo.env,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'covgate: --cobertura-out taken/README.md/x.xml: cannot write it (EEXIST)\n',
    );
  });

  it('is refused with --bundle, whose job reads no report', async () => {
    const result = await covgateIn(
      repo.dir,
      ['report', '--bundle', 'run.json', '--cobertura-out', 'gl.xml', '--dry-run'],
      repo.env,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'covgate: --cobertura-out is not taken with --bundle: write the Cobertura file in the job that reads the reports\n',
    );
  });
});
