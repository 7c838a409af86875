import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepo, expectDiffCoverFigures, type TestRepo, toolAvailable } from './git-support.js';

// covgate's patch coverage against diff-cover's on the same repository, diff and report: a
// Python project measured by coverage.py (Debian's python3-coverage), on a branch that adds
// tested and untested lines, changes lines, renames a module, deletes one, adds a binary file
// and changes a file no report names.
const tools =
  toolAvailable('diff-cover', 'diff-cover') &&
  toolAvailable('python3-coverage', 'python3-coverage');

const BASE = {
  'calc.py': `def add(a, b):
    return a + b


def sub(a, b):
    return a - b


def sign(x):
    if x < 0:
        return -1
    return 1
`,
  'util.py': `def double(x):
    return 2 * x


def triple(x):
    return 3 * x


def quadruple(x):
    return 4 * x
`,
  'old.py': 'def gone():\n    return 0\n',
  'my tools/pad.py': 'def pad(text):\n    return text.rjust(4)\n',
  'run_tests.py': `import sys
sys.path.insert(0, 'my tools')
import calc
import util
import pad
assert calc.add(1, 2) == 3
assert calc.sign(-5) == -1
assert util.double(2) == 4
`,
  'README.md': '# calc\n',
};

const FEATURE = {
  // sub changed on one line, sign gains an untested branch, two functions added (one
  // tested), a comment, blank lines and a statement over three lines.
  'calc.py': `def add(a, b):
    return a + b


def sub(a, b):
    result = a - b
    return result


def sign(x):
    if x < 0:
        return -1
    if x == 0:
        return 0
    return 1


# Multiplication, tested.
def mul(a, b):
    total = (a *
             b +
             0)
    return total


def unused(x):
    y = x + 1
    return y
`,
  // util.py renamed, one line changed (untested) and one added (tested).
  'helpers.py': `def double(x):
    return 2 * x


def triple(x):
    return x + x + x


def quadruple(x):
    return 4 * x


def half(x):
    return x / 2
`,
  'my tools/pad.py': 'def pad(text):\n    return text.rjust(8)\n',
  // A guard that runs but is excluded: coverage.py's JSON lists its line as executed and as
  // excluded; its XML, which diff-cover reads, does not list it.
  'guards.py': `def safe_half(x):
    if x == 0:  # pragma: no cover
        return 0
    return x / 2
`,
  'run_tests.py': `import sys
sys.path.insert(0, 'my tools')
import calc
import helpers
import pad
import guards
assert calc.add(1, 2) == 3
assert calc.sign(-5) == -1
assert calc.sub(5, 3) == 2
assert calc.mul(2, 3) == 6
assert helpers.double(2) == 4
assert helpers.half(4) == 2
assert guards.safe_half(4) == 2
assert pad.pad('a') == '       a'
`,
  'README.md': '# calc\n\nNow with multiplication.\n',
  'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]),
};

describe.skipIf(!tools)('patch coverage equals diff-cover on a coverage.py project', () => {
  let repo: TestRepo;
  const coverage = (...args: string[]) => repo.run('python3-coverage', args);

  beforeAll(async () => {
    repo = await createRepo('patch-python');
    await repo.write(BASE);
    await repo.commit('base');
    await repo.git('checkout', '-q', '-b', 'feature');
    await repo.git('rm', '-q', 'util.py', 'old.py');
    await repo.write(FEATURE);
    await repo.commit('feature');
    // Another commit on main after the branch point: not part of the patch.
    await repo.git('checkout', '-q', 'main');
    await repo.write({ 'calc.py': `${BASE['calc.py']}\n\ndef later():\n    return 9\n` });
    await repo.commit('main moves on');
    await repo.git('checkout', '-q', 'feature');
    await coverage('run', '--source=.', 'run_tests.py');
    await coverage('xml', '-o', 'coverage.xml');
    await coverage('json', '-o', 'coverage.json');
  }, 120_000);

  afterAll(() => repo?.remove());

  it('the diff holds a rename, a deletion, a binary file and a file no report names', async () => {
    const status = await repo.git('diff', '--name-status', '-M', 'main...feature');
    expect(status.split('\n').filter(Boolean).sort()).toEqual(
      [
        'D\told.py',
        'M\tREADME.md',
        'M\tcalc.py',
        'M\tmy tools/pad.py',
        'M\trun_tests.py',
        'A\tguards.py',
        'A\tlogo.png',
        expect.stringMatching(/^R\d+\tutil\.py\thelpers\.py$/),
      ].sort(),
    );
  });

  it('Cobertura (coverage xml): the same covered and coverable lines, file by file', async () => {
    const { reference, patch } = await expectDiffCoverFigures(repo, 'coverage.xml');
    // diff-cover prints its percentage as a whole number, truncated.
    expect(Math.trunc(patch.percent ?? -1)).toBe(reference.total_percent_covered);
    expect(patch.changed_lines).toBe(reference.num_changed_lines);
    // The comparison means something: both tested and untested changed lines.
    expect(reference.total_num_lines).toBeGreaterThan(reference.total_num_violations);
    expect(reference.total_num_violations).toBeGreaterThan(0);
    // The binary file has no lines; the deleted one none left; the renamed one is helpers.py.
    expect(patch.not_in_report).toEqual(['README.md']);
    expect(patch.changed_files).toBe(6);
    expect(patch.base_ref).toBe('main');
    expect(patch.merge_base).toBe((await repo.git('merge-base', 'main', 'feature')).trim());
  });

  it('coverage.py JSON (coverage json) gives the figure diff-cover gives on its XML', async () => {
    await expectDiffCoverFigures(repo, 'coverage.xml', { covgateReport: 'coverage.json' });
  });

  it('counts uncommitted changes to tracked files, as diff-cover does by default', async () => {
    await repo.write({
      'calc.py': `${FEATURE['calc.py']}

def scratch(x):
    return x * 10
`,
    });
    try {
      await coverage('run', '--source=.', 'run_tests.py');
      await coverage('xml', '-o', 'dirty.xml');
      const { patch } = await expectDiffCoverFigures(repo, 'dirty.xml');
      expect(patch.files.find((f) => f.path === 'calc.py')?.uncovered_lines).toContain(32);
    } finally {
      await repo.git('checkout', '--', 'calc.py');
    }
  });
});
