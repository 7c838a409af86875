// The built reference server for the benchmarks that time it through HTTP: started on a free
// port in a folder of its own, and an organisation with a session and an API token in it.
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * Starts `<serverDist>/main.js` in `cwd` with `env` (on PATH, HOME and a free PORT) and
 * resolves with the process and its URL once it says it listens. `watch` is given the process
 * first, to read its log (durations, errors).
 *
 * @param {string} serverDist
 * @param {Record<string, string>} env
 * @param {string} cwd
 * @param {(child: import('node:child_process').ChildProcess) => void} [watch]
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, url: string }>}
 */
export function startBenchServer(serverDist, env, cwd, watch) {
  const child = spawn(process.execPath, [join(serverDist, 'main.js')], {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  watch?.(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk) => {
      output += chunk;
      const found = /listening on (http:\/\/[^"\s]+)/.exec(output);
      if (found) resolve({ child, url: found[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${output}`)));
  });
}

/**
 * Bootstraps an organisation with the server's `admin.js` (on `plan`, else the default) and
 * makes an API token with its owner's session: both, for the ingests and the reads.
 *
 * @param {string} serverDist
 * @param {string} url
 * @param {Record<string, string>} env
 * @param {string} cwd
 * @param {{ plan?: string }} [options]
 * @returns {Promise<{ token: string, session: string }>}
 */
export async function benchCredentials(serverDist, url, env, cwd, options = {}) {
  const org = `bench-${Date.now().toString(36)}`;
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
    body: JSON.stringify({ name: 'bench' }),
  });
  return { token: (await created.json()).secret, session };
}
