import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRepo,
  diffCover,
  expectDiffCoverFigures,
  type TestRepo,
  toolAvailable,
} from './git-support.js';
import { covgateIn } from './in-process.js';

// covgate.yml's `ignore` against diff-cover's `--exclude` with the same globs, on the same
// repository, diff and lcov report: a generated folder and generated files are left out.
const tools = toolAvailable('diff-cover', 'diff-cover');

const lines = (n: number, prefix: string) =>
  `${Array.from({ length: n }, (_, i) => `${prefix}${i}();`).join('\n')}\n`;
const record = (path: string, hits: number[]) =>
  `SF:${path}\n${hits.map((count, i) => `DA:${i + 1},${count}`).join('\n')}\nend_of_record\n`;

const IGNORE = ['**/generated/**', '*.gen.js'];

describe.skipIf(!tools)('ignore equals diff-cover --exclude', () => {
  let repo: TestRepo;

  beforeAll(async () => {
    repo = await createRepo('policy-ignore');
    await repo.write({
      'covgate.yml': `ignore:\n${IGNORE.map((g) => `  - "${g}"`).join('\n')}\n`,
      'src/app.js': lines(2, 'app'),
      'src/generated/api.js': lines(2, 'api'),
      'lib/schema.gen.js': lines(2, 'schema'),
      '.gitignore': 'lcov.info\n',
    });
    await repo.commit('base');
    await repo.git('checkout', '-q', '-b', 'feature');
    // Each file gains 4 lines; the source's are half tested, the generated ones not at all.
    await repo.write({
      'src/app.js': lines(6, 'app'),
      'src/generated/api.js': lines(6, 'api'),
      'lib/schema.gen.js': lines(6, 'schema'),
      'lcov.info':
        record('src/app.js', [1, 1, 1, 0, 1, 0]) +
        record('src/generated/api.js', [1, 1, 0, 0, 0, 0]) +
        record('lib/schema.gen.js', [1, 1, 0, 0, 0, 0]),
    });
    await repo.commit('feature');
  });

  afterAll(() => repo?.remove());

  it('gives the patch figures diff-cover gives with the same globs excluded', async () => {
    const { patch } = await expectDiffCoverFigures(repo, 'lcov.info', { exclude: IGNORE });
    expect(patch).toMatchObject({ covered: 2, coverable: 4, percent: 50 });
    expect(patch.files.map((f) => f.path)).toEqual(['src/app.js']);
  });

  it('leaves the ignored files out of the total as well', async () => {
    const result = await covgateIn(
      repo.dir,
      ['report', '--repo', 'r', '--branch', 'main', '--report', 'lcov.info', '--dry-run', '--json'],
      repo.env,
    );
    expect(result.code, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output).toMatchObject({
      coverage: 66.66,
      covered_lines: 4,
      coverable_lines: 6,
      files: 1,
    });
    expect(output.request.body.files.map((f: { path: string }) => f.path)).toEqual(['src/app.js']);
  });

  it('diff-cover without --exclude counts the generated files (the comparison can fail)', async () => {
    const reference = await diffCover(repo, ['lcov.info'], 'main');
    expect(reference).toMatchObject({ total_num_lines: 12, total_num_violations: 10 });
  });
});
