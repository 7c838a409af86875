#!/usr/bin/env node
// `pnpm start`: builds the reference server and the workspace packages it depends on only when
// their build is missing or older than their sources, then runs the server from examples/server
// (so its default data directory is examples/server/.covgate-data).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildStaleServer } from './build-stale.mjs';

const repo = fileURLToPath(new URL('../', import.meta.url));
const serverDir = buildStaleServer(repo);
const server = spawn(process.execPath, [join(serverDir, 'dist', 'main.js')], {
  cwd: serverDir,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
