#!/usr/bin/env node
// Token-verification flood on the built reference server (issue 13), in one run:
//   1. latency of a legitimate, uncached `POST /v1/auth/validate` alone;
//   2. the same under a burst of 400 concurrent bad tokens (a distributed attack: each from
//      its own forwarded address, behind TRUST_PROXY=loopback);
//   3. argon2 verifications caused by 200 concurrent different guesses on one token id.
// Usage: pnpm bench:flood  (builds, then `node bench/verification-flood.mjs [--samples 7] [--no-pin]`)
// With two CPUs or more, the server runs on CPU 0 and the attacker and measuring client on
// CPU 1 (`--no-pin` lets the kernel place them).
import { execFileSync, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { currentUptime } from './support/machine.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const samplesArg = process.argv.indexOf('--samples');
const SAMPLES = samplesArg > 0 ? Number(process.argv[samplesArg + 1]) : 7;
const BURST = 400;
const GUESSES = 200;
const SERVICE_TOKEN = 'bench-service-token-0123456789abcdef0123456789';
const OWNER = '203.0.113.7';

const cpuCount = cpus().length;
const PIN = cpuCount > 1 && !process.argv.includes('--no-pin');
const SERVER_CPU = '0';
const CLIENT_CPU = '1';
/** Moves every thread of a process to one CPU (`taskset -a`, Debian's util-linux). */
function pin(pid, cpu) {
  execFileSync('taskset', ['-a', '-p', '-c', cpu, String(pid)], { stdio: 'ignore' });
}

const dataDir = mkdtempSync(join(tmpdir(), 'covgate-flood-'));
const server = fork(join(root, 'examples/server/dist/main.js'), [], {
  execArgv: ['--import', join(root, 'bench/support/count-argon2.mjs')],
  env: {
    ...process.env,
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    COVGATE_DATA_DIR: dataDir,
    SERVICE_TOKEN,
    TRUST_PROXY: '127.0.0.1,::1',
    TOKEN_CREATE_RATE_LIMIT: '1000',
    DATABASE_URL: '',
    REDIS_URL: '',
  },
  stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
});

// Once the address is read, the server's log is drained unread: the measured client must
// not spend its own event loop searching a growing log.
const baseUrl = await new Promise((resolve, reject) => {
  let seen = '';
  const onData = (chunk) => {
    seen += chunk;
    const match = /covgate listening on (http:\/\/[^\s"]+)/.exec(seen);
    if (!match) return;
    server.stdout.off('data', onData);
    server.stdout.resume();
    resolve(match[1]);
  };
  server.stdout.on('data', onData);
  server.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
});

function argon2Count() {
  return new Promise((resolve) => {
    server.once('message', (message) => resolve(message.verifications));
    server.send('argon2-count');
  });
}

async function post(path, { bearer, body, forwardedFor } = {}) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: {
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, text, headers: response.headers };
}

async function json(path, options, expected) {
  const answer = await post(path, options);
  if (answer.status !== expected) throw new Error(`${path}: ${answer.status} ${answer.text}`);
  return JSON.parse(answer.text);
}

const attacker = fork(join(root, 'bench/support/flood-client.mjs'), [], { stdio: 'inherit' });
// As with wrk in http-throughput.mjs: the server (its argon2 threads included) on CPU 0, the
// attacker and the measuring client on CPU 1, so the load generator does not take the
// server's CPU. An attacker's own CPU is not the server's in a real flood.
if (PIN) {
  pin(server.pid, SERVER_CPU);
  pin(attacker.pid, CLIENT_CPU);
  pin(process.pid, CLIENT_CPU);
}
let nextAddress = 1;
/**
 * Sends `count` concurrent validations from the attacker process, each from a fresh
 * forwarded address (10.0.0.0/8): random tokens, or `token` when given. Resolves once sent
 * with a promise of the status counts.
 */
function flood(count, token, health = false) {
  const firstAddress = nextAddress;
  nextAddress += count;
  return new Promise((resolveSent) => {
    const done = new Promise((resolveDone) => {
      const onMessage = (message) => {
        if (message.started) resolveSent({ done });
        if (message.statuses) {
          attacker.off('message', onMessage);
          resolveDone(message.statuses);
        }
      };
      attacker.on('message', onMessage);
    });
    attacker.send({ baseUrl, count, token, firstAddress, health });
  });
}

function addCounts(total, counts) {
  for (const [status, n] of Object.entries(counts)) total[status] = (total[status] ?? 0) + n;
}

async function timedValidate(token, forwardedFor) {
  const started = performance.now();
  const answer = await post('/v1/auth/validate', { bearer: token, body: {}, forwardedFor });
  return { ms: performance.now() - started, status: answer.status };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const round = (value) => Math.round(value * 10) / 10;

try {
  const org = await json(
    '/v1/organisations',
    { bearer: SERVICE_TOKEN, body: { slug: 'flood', plan: 'enterprise' } },
    201,
  );
  const session = await json(
    '/v1/sessions/create',
    { bearer: SERVICE_TOKEN, body: { user_id: 'usr_flood', org_id: org.id } },
    201,
  );
  const newToken = async () =>
    (await json('/v1/tokens', { bearer: session.token, body: { name: 'ci' } }, 201)).secret;
  const alone = [];
  const burst = [];
  for (let i = 0; i < SAMPLES; i++) alone.push(await newToken());
  for (let i = 0; i < SAMPLES; i++) burst.push(await newToken());
  const healthBurst = [];
  for (let i = 0; i < SAMPLES; i++) healthBurst.push(await newToken());
  const firstUse = [];
  for (let i = 0; i < SAMPLES; i++) firstUse.push(await newToken());
  const guessed = await newToken();

  // The owners used their tokens from their address once; then the 10 s verified-token cache
  // lapses, so every measured request runs argon2 ("uncached").
  for (const token of [...alone, ...burst, ...healthBurst]) {
    const warm = await timedValidate(token, OWNER);
    if (warm.status !== 200) throw new Error(`warm-up validate: ${warm.status}`);
  }
  await new Promise((resolve) => setTimeout(resolve, 10_500));

  const aloneMs = [];
  for (const token of alone) {
    const sample = await timedValidate(token, OWNER);
    if (sample.status !== 200) throw new Error(`alone: ${sample.status}`);
    aloneMs.push(sample.ms);
  }

  const burstStatuses = {};
  const underBurst = async (token) => {
    const { done } = await flood(BURST);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const sample = await timedValidate(token, OWNER);
    addCounts(burstStatuses, await done);
    return sample;
  };
  const burstMs = [];
  const burstLegitStatuses = {};
  for (const token of burst) {
    const sample = await underBurst(token);
    burstLegitStatuses[sample.status] = (burstLegitStatuses[sample.status] ?? 0) + 1;
    burstMs.push(sample.ms);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  // The same legitimate request under 400 concurrent `GET /health`: what the burst costs
  // without any token verification (the HTTP pipeline and the machine).
  const healthMs = [];
  for (const token of healthBurst) {
    const { done } = await flood(BURST, undefined, true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const sample = await timedValidate(token, OWNER);
    await done;
    if (sample.status !== 200) throw new Error(`under /health burst: ${sample.status}`);
    healthMs.push(sample.ms);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  const firstUseStatuses = {};
  const firstUseMs = [];
  for (const token of firstUse) {
    const sample = await underBurst(token);
    firstUseStatuses[sample.status] = (firstUseStatuses[sample.status] ?? 0) + 1;
    firstUseMs.push(sample.ms);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }

  // The attacker sends GUESSES different wrong secrets for this token's id.
  const before = await argon2Count();
  const guessStatuses = await (await flood(GUESSES, guessed)).done;
  const guessVerifications = (await argon2Count()) - before;

  const aloneMedian = median(aloneMs);
  const burstMedian = median(burstMs);
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpuCount,
    placement: PIN ? 'server on CPU 0; attacker and measuring client on CPU 1' : 'not pinned',
    uptime: currentUptime(),
    loadavg: loadavg().map((value) => Math.round(value * 100) / 100),
    legitimateUncachedValidate: {
      aloneMs: { median: round(aloneMedian), max: round(Math.max(...aloneMs)), samples: SAMPLES },
      under400BadTokensMs: {
        median: round(burstMedian),
        max: round(Math.max(...burstMs)),
        statuses: burstLegitStatuses,
      },
      ratio: round(burstMedian / aloneMedian),
      under400HealthRequestsMs: {
        median: round(median(healthMs)),
        max: round(Math.max(...healthMs)),
        note: 'the same request under 400 concurrent GET /health: the burst without argon2',
      },
      goal: 'under 4x alone',
      burstStatuses,
    },
    firstUseTokenUnder400BadTokens: {
      median: round(median(firstUseMs)),
      statuses: firstUseStatuses,
      note: 'a token never verified from this address waits with the flood (or is shed with 503)',
    },
    guessesOnOneTokenId: {
      concurrent: GUESSES,
      argon2Verifications: guessVerifications,
      goal: 'at most 10 (the per-token-id limit)',
      statuses: guessStatuses,
    },
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  server.kill('SIGTERM');
  attacker.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
