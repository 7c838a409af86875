#!/usr/bin/env node
// `pnpm start`: builds the reference server and the workspace packages it depends on only when
// their build is missing or older than their sources, then runs the server from examples/server
// (so its default data directory is examples/server/.covgate-data).
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER, staleBuilds, workspacePackages } from './stale-builds.mjs';

const repo = fileURLToPath(new URL('../', import.meta.url));
const packages = workspacePackages(repo);
const stale = staleBuilds(packages);
if (stale.length > 0) {
  console.error(`covgate: building ${stale.join(', ')}`);
  const filters = stale.flatMap((name) => ['--filter', name]);
  const build = spawnSync('pnpm', ['-r', ...filters, 'run', 'build'], {
    cwd: repo,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const serverDir = packages.get(SERVER).dir;
const server = spawn(process.execPath, [join(serverDir, 'dist', 'main.js')], {
  cwd: serverDir,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
