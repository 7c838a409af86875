// Builds the reference server and the workspace packages it depends on when their build is
// missing or older than their sources (`pnpm start` and `pnpm admin`). The build's output goes
// to stderr: `pnpm admin login-link` prints the link alone on stdout.
import { spawnSync } from 'node:child_process';
import { SERVER, staleBuilds, workspacePackages } from './stale-builds.mjs';

/**
 * Builds what is stale under `repo` (exiting with the build's code when it fails).
 *
 * @returns the reference server's package folder.
 */
export function buildStaleServer(repo) {
  const packages = workspacePackages(repo);
  const stale = staleBuilds(packages);
  if (stale.length > 0) {
    console.error(`covgate: building ${stale.join(', ')}`);
    const filters = stale.flatMap((name) => ['--filter', name]);
    const build = spawnSync('pnpm', ['-r', ...filters, 'run', 'build'], {
      cwd: repo,
      stdio: ['ignore', process.stderr, process.stderr],
    });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  return packages.get(SERVER).dir;
}
