import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedLines, unquoteC } from '../src/patch/diff-lines.js';
import { readChangedLines } from '../src/patch/git-diff.js';
import { findPatchBase } from '../src/patch/merge-base.js';
import { createRepo, sh, type TestRepo } from './git-support.js';

// The git side of patch coverage, on real repositories: which lines a diff changes, where the
// merge base is, and what covgate says when a checkout lacks the base branch or its history.

const HINT = '(in GitHub Actions: actions/checkout with fetch-depth: 0)';

describe('the lines a diff adds or changes', () => {
  let repo: TestRepo;
  let base: string;

  beforeAll(async () => {
    repo = await createRepo('patch-diff');
    await repo.write({
      'a.txt': 'one\ntwo\nthree\nfour\nfive\n',
      'moved.txt': Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join(''),
      'gone.txt': 'bye\n',
      'sp ace.txt': 'a\nb\n',
      'tab\té.txt': 'x\n',
      'no-eol.txt': 'last',
      'mode.sh': 'echo\n',
    });
    await repo.commit('base');
    base = (await repo.git('rev-parse', 'HEAD')).trim();
    await repo.git('mv', 'moved.txt', 'renamed.txt');
    await repo.git('rm', '-q', 'gone.txt');
    await repo.git('update-index', '--chmod=+x', 'mode.sh');
    await repo.write({
      // Line 2 changed, 4 removed, two lines added at the end; "++ x" shows as "+++ x".
      'a.txt': 'one\nTWO\nthree\nfive\n++ x\nsix\n',
      'renamed.txt': Array.from({ length: 20 }, (_, i) =>
        i === 9 ? 'line ten\n' : `line ${i + 1}\n`,
      ).join(''),
      'sp ace.txt': 'a\nB\nc\n',
      'tab\té.txt': 'x\ny\n',
      'no-eol.txt': 'last\nmore',
      'new.bin': Buffer.from([0, 1, 2, 3, 0, 255]),
      'added.txt': 'fresh\nlines\n',
    });
    await repo.commit('change');
  });

  afterAll(() => repo?.remove());

  it('names each file by its path after the change, with the lines added or changed', async () => {
    const changed = await readChangedLines(repo.dir, base, repo.env);
    expect(Object.fromEntries(changed)).toEqual({
      'a.txt': [
        { start: 2, count: 1 },
        { start: 5, count: 2 },
      ],
      'added.txt': [{ start: 1, count: 2 }],
      'no-eol.txt': [{ start: 1, count: 2 }],
      // Renamed: only the changed line counts.
      'renamed.txt': [{ start: 10, count: 1 }],
      'sp ace.txt': [{ start: 2, count: 2 }],
      'tab\té.txt': [{ start: 2, count: 1 }],
      // gone.txt (deleted), new.bin (binary) and mode.sh (mode only) add no line.
    });
  });

  it('reads a diff the same whatever the git config says about colour, prefixes and quoting', async () => {
    await repo.git('config', 'color.ui', 'always');
    await repo.git('config', 'diff.noprefix', 'true');
    await repo.git('config', 'diff.mnemonicPrefix', 'true');
    await repo.git('config', 'core.quotePath', 'false');
    await repo.git('config', 'diff.renames', 'false');
    try {
      const changed = await readChangedLines(repo.dir, base, repo.env);
      expect(changed.get('renamed.txt')).toEqual([{ start: 10, count: 1 }]);
      expect(changed.get('tab\té.txt')).toEqual([{ start: 2, count: 1 }]);
      expect([...changed.keys()].sort()).toEqual([
        'a.txt',
        'added.txt',
        'no-eol.txt',
        'renamed.txt',
        'sp ace.txt',
        'tab\té.txt',
      ]);
    } finally {
      for (const key of [
        'color.ui',
        'diff.noprefix',
        'diff.mnemonicPrefix',
        'core.quotePath',
        'diff.renames',
      ])
        await repo.git('config', '--unset', key);
    }
  });

  it('takes a hunk without a count as one line, and a count of 0 as none', () => {
    const diff = [
      'diff --git a/f b/f',
      '--- a/f',
      '+++ b/f',
      '@@ -3 +3 @@ context',
      '-old',
      '+new',
      '@@ -7,2 +6,0 @@',
      '-x',
      '-y',
      '@@ -0,0 +1,3 @@',
      '+a',
      '+b',
      '+c',
    ].join('\n');
    expect(Object.fromEntries(changedLines(diff))).toEqual({
      f: [
        { start: 3, count: 1 },
        { start: 1, count: 3 },
      ],
    });
  });

  it('decodes the C quoting of git paths', () => {
    expect(unquoteC('"b/tab\\t\\303\\251.txt"')).toBe('b/tab\té.txt');
    expect(unquoteC('"b/q\\"uote\\\\back\\nline"')).toBe('b/q"uote\\back\nline');
  });
});

describe('the merge base with the base branch', () => {
  let origin: TestRepo;
  let mergeBase: string;

  beforeAll(async () => {
    origin = await createRepo('patch-base');
    for (let i = 1; i <= 5; i++) {
      await origin.write({ 'f.txt': `${i}\n` });
      await origin.commit(`main ${i}`);
    }
    mergeBase = (await origin.git('rev-parse', 'HEAD')).trim();
    await origin.git('checkout', '-q', '-b', 'feature');
    await origin.write({ 'g.txt': 'feature\n' });
    await origin.commit('feature 1');
    await origin.write({ 'g.txt': 'feature\nmore\n' });
    await origin.commit('feature 2');
    await origin.git('checkout', '-q', 'main');
    await origin.write({ 'f.txt': '6\n' });
    await origin.commit('main 6');
    await origin.git('checkout', '-q', 'feature');
  });

  afterAll(() => origin?.remove());

  const clone = async (name: string, ...args: string[]) => {
    const dir = join(origin.dir, '..', name);
    await sh(
      join(origin.dir, '..'),
      'git',
      ['clone', '-q', ...args, '--branch', 'feature', `file://${origin.dir}`, dir],
      origin.env,
    );
    return dir;
  };

  it('finds it with the local branch when there is no origin/<base>', async () => {
    expect(await findPatchBase(origin.dir, 'main', origin.env)).toEqual({
      baseRef: 'main',
      mergeBase,
    });
  });

  it('prefers origin/<base> in a clone, and names the fetch when the base is not there', async () => {
    const full = await clone('full');
    expect(await findPatchBase(full, 'main', origin.env)).toEqual({
      baseRef: 'origin/main',
      mergeBase,
    });
    expect(await findPatchBase(full, 'release/1.x', origin.env)).toEqual({
      reason: `the base branch release/1.x is not in this checkout (no origin/release/1.x or release/1.x); fetch it before covgate runs: git fetch --no-tags origin release/1.x:refs/remotes/origin/release/1.x ${HINT}`,
      fetchable: true,
    });
  });

  it('in a shallow clone says which fetch is missing, and the fetch it names works', async () => {
    const shallow = await clone('shallow', '--depth', '1', '--single-branch');
    const fetch = 'git fetch --no-tags --unshallow origin main:refs/remotes/origin/main';
    expect(await findPatchBase(shallow, 'main', origin.env)).toEqual({
      reason: `the base branch main is not in this checkout (no origin/main or main); fetch it before covgate runs: ${fetch} ${HINT}`,
      fetchable: true,
    });
    // The base branch alone is not enough: HEAD's history stops at the shallow boundary.
    await sh(
      shallow,
      'git',
      ['fetch', '-q', '--no-tags', 'origin', 'main:refs/remotes/origin/main'],
      origin.env,
    );
    expect(await findPatchBase(shallow, 'main', origin.env)).toEqual({
      reason: `the checkout is shallow and HEAD's history does not reach origin/main; fetch the history before covgate runs: ${fetch} ${HINT}`,
      fetchable: true,
    });
    await sh(shallow, 'git', fetch.split(' ').slice(1).concat('-q'), origin.env);
    expect(await findPatchBase(shallow, 'main', origin.env)).toEqual({
      baseRef: 'origin/main',
      mergeBase,
    });
  });

  it('says when HEAD and the base branch share no commit', async () => {
    await origin.git('checkout', '-q', '--orphan', 'island');
    await origin.commit('unrelated');
    try {
      expect(await findPatchBase(origin.dir, 'main', origin.env)).toEqual({
        reason: 'HEAD and main have no commit in common',
        fetchable: false,
      });
    } finally {
      await origin.git('checkout', '-q', 'feature');
    }
  });

  it('says when the folder is not a git checkout, and quotes an odd branch name for the shell', async () => {
    const outside = join(origin.dir, '..', 'home');
    expect(await findPatchBase(outside, 'main', origin.env)).toEqual({
      reason: `${outside} is not a git checkout`,
      fetchable: false,
    });
    expect(await findPatchBase(origin.dir, "it's", origin.env)).toEqual({
      reason: `the base branch it's is not in this checkout (no origin/it's or it's); fetch it before covgate runs: git fetch --no-tags origin 'it'\\''s:refs/remotes/origin/it'\\''s' ${HINT}`,
      fetchable: true,
    });
  });
});
