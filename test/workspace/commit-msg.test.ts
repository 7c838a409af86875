import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '@covgate/test-support/processes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The commit-msg hook contributors enable with `git config core.hooksPath .githooks`
// (docs/contributing.md), exercised through git itself in a scratch repository.

const hooks = fileURLToPath(new URL('../../.githooks', import.meta.url));
const SUBJECT_72 = `Store: ${'x'.repeat(65)}`;

describe('the commit-msg hook', () => {
  let dir: string;
  const env = {
    PATH: process.env.PATH,
    HOME: tmpdir(),
    GIT_AUTHOR_NAME: 'covgate',
    GIT_AUTHOR_EMAIL: 'covgate@example.com',
    GIT_COMMITTER_NAME: 'covgate',
    GIT_COMMITTER_EMAIL: 'covgate@example.com',
  };
  const git = (...args: string[]) => run('git', args, { cwd: dir, env });
  const commit = (message: string) => git('commit', '--allow-empty', '-q', '-m', message);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'covgate-commit-msg-'));
    await git('init', '-q');
    await git('config', 'core.hooksPath', hooks);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes a subject of 72 characters with the why in the body', async () => {
    expect(SUBJECT_72).toHaveLength(72);
    const result = await commit(`${SUBJECT_72}\n\nWhy it changed.`);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('refuses a subject of 73 characters, saying how long it is', async () => {
    const result = await commit(`${SUBJECT_72}y\n\nWhy it changed.`);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'commit-msg: the subject has 73 characters, more than 72: say what changed in it and put the why in the body\n',
    );
  });

  it('refuses a body that starts on the line after the subject', async () => {
    const result = await commit('Store: one file per entity\nWhy it changed.');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'commit-msg: the subject must be followed by a blank line before the body\n',
    );
  });

  it('counts characters, not bytes, and reads no comment line', async () => {
    const subject = `Docs: ${'é'.repeat(66)}`;
    const result = await git(
      'commit',
      '--allow-empty',
      '-q',
      '--cleanup=verbatim',
      '-m',
      `# ${'a comment longer than the subject may be '.repeat(3)}\n${subject}`,
    );
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});
