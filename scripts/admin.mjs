#!/usr/bin/env node
// `pnpm admin <command>`: covgate-admin in a clone, where no `covgate-admin` is installed. It
// builds what is stale (as `pnpm start` does) and runs the admin command from examples/server,
// the folder `pnpm start` runs the server from, so both use the same data folder
// (examples/server/.covgate-data by default). `pnpm -s admin` leaves out pnpm's own header,
// so that stdout holds the command's output alone: `open "$(pnpm -s admin login-link dev)"`.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildStaleServer } from './build-stale.mjs';

const repo = fileURLToPath(new URL('../', import.meta.url));
const serverDir = buildStaleServer(repo);
const admin = spawn(
  process.execPath,
  [join(serverDir, 'dist', 'admin.js'), ...process.argv.slice(2)],
  {
    cwd: serverDir,
    stdio: 'inherit',
  },
);
admin.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
