import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtService, type PartsService } from '../../../test/support/built-parts-service.js';
import { isServerBuilt } from '../../../test/support/built-server.js';
import {
  createRepo,
  type DiffCoverReport,
  diffCover,
  diffCoverFigures,
  type TestRepo,
  toolAvailable,
} from './git-support.js';
import { mergedRun, postParts, reportInOneCall } from './shard-service.js';

// A Python library whose pytest suite CI runs as two jobs on two subsets of its test files,
// each measured by coverage.py (Debian's python3-coverage) and written as Cobertura XML, on a
// pull request's branch; each job's report posted as a part through the CLI to the BUILT
// reference server (SQLite), and both downloaded into coverage-1/ and coverage-2/ and posted in
// one call. Compared with coverage.py's own figure of the unsharded run and with diff-cover on
// the unsharded report.

const tools =
  toolAvailable('diff-cover', 'diff-cover') &&
  toolAvailable('python3-coverage', 'python3-coverage') &&
  toolAvailable('pytest-3', 'python3-pytest');
if (!isServerBuilt() && process.env.CI !== '1') {
  console.warn('[covgate] coverage.py shards test SKIPPED: run `pnpm build` first');
}

const BASE: Record<string, string> = {
  '.gitignore': 'coverage*\n.coverage*\n.unsharded\n__pycache__\n.pytest_cache\n',
  'lib/calc.py': 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n',
  'lib/text.py': 'def shout(s):\n    return s.upper() + "!"\n',
  'tests/test_calc.py':
    'from lib import calc\n\n\ndef test_add():\n    assert calc.add(1, 2) == 3\n',
  'tests/test_text.py':
    'from lib import text\n\n\ndef test_shout():\n    assert text.shout("a") == "A!"\n',
};

// The pull request: a shared module each subset reaches a different branch of, and functions
// added to both modules, one never called.
const FEATURE: Record<string, string> = {
  'lib/clamp.py':
    'def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n',
  'lib/calc.py':
    'from lib.clamp import clamp\n\n\ndef add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef div(a, b):\n    if b == 0:\n        return 0\n    return clamp(a // b, 0, 100)\n',
  'lib/text.py':
    'from lib.clamp import clamp\n\n\ndef shout(s):\n    return s.upper() + "!"\n\n\ndef cut(s, n):\n    return s[: clamp(n, 0, len(s))]\n\n\ndef never(s):\n    t = s.strip()\n    return len(t)\n',
  'tests/test_calc.py':
    'from lib import calc\n\n\ndef test_add():\n    assert calc.add(1, 2) == 3\n\n\ndef test_div():\n    assert calc.div(-8, 2) == 0\n',
  'tests/test_text.py':
    'from lib import text\n\n\ndef test_shout():\n    assert text.shout("a") == "A!"\n\n\ndef test_cut():\n    assert text.cut("abc", 9) == "abc"\n',
};

/** coverage.py's own totals of a run (`coverage json`). */
interface Totals {
  covered_lines: number;
  num_statements: number;
  percent_covered: number;
}

describe.skipIf(!tools || (!isServerBuilt() && process.env.CI !== '1'))(
  'coverage.py on two subsets of a pytest suite, posted to the built server',
  () => {
    let repo: TestRepo;
    let service: PartsService;
    let unsharded: Totals;
    let reference: DiffCoverReport;
    /** `coverage run -m pytest <tests>` with its data in `dataFile`, then its XML in `folder`. */
    const measure = async (dataFile: string, folder: string, tests: string[]) => {
      const env = { COVERAGE_FILE: join(repo.dir, dataFile) };
      const coverage = (...args: string[]) => repo.run('python3-coverage', args, env);
      await coverage(
        'run',
        '--source=lib',
        '-m',
        'pytest',
        '-q',
        '-p',
        'no:cacheprovider',
        ...tests,
      );
      await coverage('xml', '-o', `${folder}/coverage.xml`);
      await coverage('json', '-o', `${folder}/coverage.json`);
      return JSON.parse(await readFile(join(repo.dir, folder, 'coverage.json'), 'utf8'))
        .totals as Totals;
    };

    beforeAll(async () => {
      repo = await createRepo('shards-python');
      await repo.write(BASE);
      await repo.commit('two modules');
      await repo.git('checkout', '-q', '-b', 'feature');
      await repo.write(FEATURE);
      await repo.commit('a shared module');
      await measure('.coverage.1', 'coverage-1', ['tests/test_calc.py']);
      await measure('.coverage.2', 'coverage-2', ['tests/test_text.py']);
      unsharded = await measure('.coverage.all', '.unsharded', ['tests']);
      reference = await diffCover(repo, ['.unsharded/coverage.xml'], 'main');
      service = await builtService();
    }, 240_000);
    afterAll(async () => {
      await service?.close();
      await repo?.remove();
    });

    it('made subsets that each cover less than the whole run, and a patch with missed lines', async () => {
      const totals = [];
      for (const i of [1, 2]) {
        const json = await readFile(join(repo.dir, `coverage-${i}`, 'coverage.json'), 'utf8');
        totals.push(JSON.parse(json).totals.covered_lines);
      }
      for (const covered of totals) expect(covered).toBeLessThan(unsharded.covered_lines);
      expect(unsharded.covered_lines).toBeLessThan(unsharded.num_statements);
      expect(reference.total_num_violations).toBeGreaterThan(0);
      expect(reference.total_num_lines).toBeGreaterThan(reference.total_num_violations);
    });

    it('posted as two parts: the merged run has coverage.py’s unsharded figure and diff-cover’s patch', async () => {
      const args = ['--repo', 'py-lib', '--branch', 'feature', '--base-branch', 'main'];
      const [first, last] = await postParts(
        repo,
        service,
        [
          { report: 'coverage-1/coverage.xml', part: 'calc' },
          { report: 'coverage-2/coverage.xml', part: 'text' },
        ],
        args,
      );
      expect(first?.code, first?.stderr).toBe(0);
      expect(JSON.parse(first?.stdout ?? '')).toMatchObject({ outcome: 'pending' });
      const verdict = JSON.parse(last?.stdout ?? '');
      const merged = await mergedRun(service, verdict.execution_id);
      expect([merged.covered, merged.coverable, merged.coverage]).toEqual([
        unsharded.covered_lines,
        unsharded.num_statements,
        Math.trunc(unsharded.percent_covered * 100) / 100,
      ]);
      expect(merged.patch).toEqual(diffCoverFigures(reference));
      expect(verdict.coverage).toBe(merged.coverage);
    });

    it('downloaded as coverage-1/ and coverage-2/ and posted in one call: the same figures', async () => {
      const reports = ['coverage-1/coverage.xml', 'coverage-2/coverage.xml'];
      const { patch, out } = await reportInOneCall(repo, reports, 'main');
      expect(patch).toEqual(diffCoverFigures(reference));
      expect([out.covered_lines, out.coverable_lines, out.coverage]).toEqual([
        unsharded.covered_lines,
        unsharded.num_statements,
        Math.trunc(unsharded.percent_covered * 100) / 100,
      ]);
      expect(out.unknown_paths).toEqual([]);
    });
  },
);
