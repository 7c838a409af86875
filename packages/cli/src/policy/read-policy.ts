import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { usageError } from '../errors.js';
import { parsePolicy } from './parse-policy.js';
import { POLICY_FILE_NAMES, type Policy, type PolicyFileName } from './policy.js';

/** A policy file as read: where from, its digest and what it says. */
export interface LoadedPolicy {
  /** `covgate.yml` or `.covgate.yml`. */
  file: PolicyFileName;
  /** The commit the file was read at; null for the working tree (outside git). */
  commit: string | null;
  /** sha256 of the file's bytes, hexadecimal. */
  digest: string;
  policy: Policy;
}

/** The policy file's bytes at `commit` (or in the working tree when null), or null when it has none. */
export async function readPolicyBytes(
  root: string,
  commit: string | null,
  env: NodeJS.ProcessEnv,
): Promise<{ file: PolicyFileName; bytes: Buffer } | null> {
  const found: { file: PolicyFileName; bytes: Buffer }[] = [];
  for (const file of POLICY_FILE_NAMES) {
    const bytes =
      commit === null
        ? await workingTreeFile(join(root, file))
        : await blobAt(root, commit, file, env);
    if (bytes !== null) found.push({ file, bytes });
  }
  if (found.length > 1) {
    const where = commit === null ? root : `commit ${commit.slice(0, 12)}`;
    throw usageError(
      `both covgate.yml and .covgate.yml are in ${where}: keep one (covgate reads one policy file)`,
    );
  }
  return found[0] ?? null;
}

/**
 * Reads and validates the policy at `commit` (the working tree when null).
 *
 * @throws CliError (exit 2) naming the file, line and column of what is wrong
 */
export async function loadPolicy(
  root: string,
  commit: string | null,
  env: NodeJS.ProcessEnv,
): Promise<LoadedPolicy | null> {
  const read = await readPolicyBytes(root, commit, env);
  if (read === null) return null;
  const name = commit === null ? read.file : `${read.file} at ${commit.slice(0, 12)}`;
  return {
    file: read.file,
    commit,
    digest: createHash('sha256').update(read.bytes).digest('hex'),
    policy: parsePolicy(read.bytes.toString('utf8'), name),
  };
}

async function workingTreeFile(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw usageError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
}

/** `git cat-file blob <commit>:<file>`: the bytes, or null when the commit has no such file. */
function blobAt(
  root: string,
  commit: string,
  file: string,
  env: NodeJS.ProcessEnv,
): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['cat-file', 'blob', `${commit}:${file}`],
      { cwd: root, env, encoding: 'buffer', maxBuffer: 4 * 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        // "path 'covgate.yml' does not exist in 'abc'" (or "... exists on disk, but not in").
        if (/does not exist|exists on disk, but not in/.test(stderr.toString('utf8'))) {
          return resolve(null);
        }
        reject(
          usageError(
            `cannot read ${file} at ${commit.slice(0, 12)}: ${stderr.toString('utf8').trim() || error.message}`,
          ),
        );
      },
    );
  });
}
