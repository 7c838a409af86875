// The built reference server for the benchmarks that time it through HTTP: started on a free
// port in a folder of its own, and an organisation with a session and an API token in it.
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * Starts `<serverDist>/main.js` in `cwd` with `env` (on PATH, HOME and a free PORT) and
 * resolves with the process and its URL once it says it listens. `watch` is given the process
 * first, to read its log (durations, errors); without it the log is drained and dropped once
 * the server listens. `options.cpu` pins the process to that CPU (`taskset -c`, same pid);
 * `options.nodeArgs` go to node before the script (`--cpu-prof`, `--import` of a probe);
 * `options.ipc` opens an IPC channel to it (a probe's answers).
 *
 * @param {string} serverDist
 * @param {Record<string, string>} env
 * @param {string} cwd
 * @param {(child: import('node:child_process').ChildProcess) => void} [watch]
 * @param {{ cpu?: string, nodeArgs?: string[], ipc?: boolean }} [options]
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, url: string }>}
 */
export function startBenchServer(serverDist, env, cwd, watch, options = {}) {
  const node = [process.execPath, ...(options.nodeArgs ?? []), join(serverDist, 'main.js')];
  const [command, ...args] =
    options.cpu === undefined ? node : ['taskset', '-c', options.cpu, ...node];
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe', ...(options.ipc ? ['ipc'] : [])],
  });
  watch?.(child);
  return new Promise((resolve, reject) => {
    let output = '';
    let listening = false;
    const onData = (chunk) => {
      // Past the start the log is only drained: a long run would otherwise keep all of it.
      if (listening) return;
      output += chunk;
      const found = /listening on (http:\/\/[^"\s]+)/.exec(output);
      if (found) {
        listening = true;
        output = '';
        resolve({ child, url: found[1] });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      if (!listening) reject(new Error(`server exited ${code}: ${output}`));
    });
  });
}

/**
 * Bootstraps an organisation with the server's `admin.js` (on `plan`, else the default; `org`,
 * else a new `bench-...` slug: bootstrapping an existing organisation adds an owner to it) and
 * makes an API token with its owner's session: both, for the ingests and the reads.
 *
 * @param {string} serverDist
 * @param {string} url
 * @param {Record<string, string>} env
 * @param {string} cwd
 * @param {{ plan?: string, org?: string }} [options]
 * @returns {Promise<{ token: string, session: string }>}
 */
export async function benchCredentials(serverDist, url, env, cwd, options = {}) {
  const org = options.org ?? `bench-${Date.now().toString(36)}`;
  const plan = options.plan ? ['--plan', options.plan] : [];
  const admin = execFileSync(
    process.execPath,
    [join(serverDist, 'admin.js'), 'bootstrap', org, ...plan],
    { cwd, env: { PATH: process.env.PATH, HOME: cwd, ...env }, encoding: 'utf8' },
  );
  const session = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin)[1];
  const created = await fetch(`${url}/v1/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `bench-${Date.now().toString(36)}` }),
  });
  if (created.status !== 201) throw new Error(`token: ${created.status} ${await created.text()}`);
  return { token: (await created.json()).secret, session };
}
