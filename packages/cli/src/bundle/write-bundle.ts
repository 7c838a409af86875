import { rename, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { usageError } from '../errors.js';
import type { PatchResult } from '../gate/measure-patch.js';
import type { Target } from '../gate/target.js';
import type { Gathered } from '../gather-reports.js';
import type { Io } from '../io.js';
import { MAX_BUNDLE_BYTES } from './bundle.js';
import { bundleProblem } from './check-bundle.js';
import { makeBundle } from './make-bundle.js';

const FULL_COMMIT = /^([0-9a-f]{40}|[0-9a-f]{64})$/i;

/**
 * Checks, before the tests run, that a bundle can be made here: a pull request's job that
 * knows its head commit in full and its number.
 *
 * @throws CliError (exit 2) naming what is missing
 */
export function checkBundleTarget(target: Target): { commit: string; pullRequest: number } {
  if (target.pullRequest === undefined) {
    throw usageError(
      "--bundle is for a pull request's job, and this job names no pull request (GitHub Actions: run it on pull_request)",
    );
  }
  if (!target.commit || !FULL_COMMIT.test(target.commit)) {
    throw usageError(
      `--bundle needs the pull request's head commit in full (40 or 64 hex characters); ${target.commit ? `--commit ${target.commit} is not` : 'none was detected'}`,
    );
  }
  return { commit: target.commit, pullRequest: target.pullRequest };
}

/**
 * `covgate run --bundle FILE`: writes the run's bundle (docs/fork-pull-requests.md) instead of
 * posting it, and says so. The file is written whole or not at all (a temporary file renamed).
 *
 * @throws CliError (exit 2) when the bundle would be larger than a bundle may be, or names a
 *   file outside the repository
 */
export async function writeBundle(
  file: string,
  input: {
    read: Gathered;
    patch: PatchResult;
    target: Target & { commit: string; pullRequest: number };
    version: string;
    json: boolean;
  },
  io: Io,
): Promise<number> {
  const bundle = makeBundle({
    read: input.read,
    patch: input.patch,
    commit: input.target.commit,
    pullRequest: input.target.pullRequest,
    branch: input.target.branch,
    baseBranch: input.target.baseBranch,
    version: input.version,
  });
  const problem = bundleProblem(bundle);
  if (problem !== null) {
    throw usageError(
      `the bundle cannot be written: ${problem} (a report path outside the repository needs a --path-map)`,
    );
  }
  const text = `${JSON.stringify(bundle)}\n`;
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_BUNDLE_BYTES) {
    throw usageError(
      `the bundle would be ${bytes} bytes, more than a bundle may have (${MAX_BUNDLE_BYTES})`,
    );
  }
  const path = resolve(io.cwd, file);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o644 });
  await rename(temporary, path);
  const what = `${bundle.files.length} file${bundle.files.length === 1 ? '' : 's'}, commit ${bundle.commit.slice(0, 12)}, pull request #${bundle.pull_request}`;
  io.stderr.write(
    `covgate: wrote the bundle ${file} (${what}); nothing was posted: a workflow_run job posts it with covgate report --bundle ${file}\n`,
  );
  if (input.json) {
    io.stdout.write(
      `${JSON.stringify({ bundle: file, bytes, commit: bundle.commit, pull_request: bundle.pull_request, files: bundle.files.length, coverage: input.read.summary.percent, patch: input.patch.patch ? { covered: input.patch.patch.covered, coverable: input.patch.patch.coverable } : null })}\n`,
    );
  }
  return 0;
}
