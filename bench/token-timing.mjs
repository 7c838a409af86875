// Can response time tell a token id that exists from one that does not? (issue 13's timing
// claim: an unknown id waits as long as a recent real argon2 verification took.)
// In one process, with the default argon2id costs and no throttle, `POST /v1/auth/validate`
// is timed for a known token id with a wrong secret and for an unknown token id, one request
// at a time in random order; printed: both distributions, the difference of their medians,
// the Kolmogorov-Smirnov distance D, and how often an attacker who sees one response time
// would guess right with the best threshold ((1 + D) / 2; 50 % is a coin toss).
// The same run also times an API whose pace waits with a bare `setTimeout` (which drops the
// fraction of a millisecond), the way covgate waited before 2026-11-25, for comparison.
// Usage: pnpm --filter @covgate/core build && node bench/token-timing.mjs [--samples 400]
import { setTimeout as sleepFor } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import {
  createApi,
  createTokenHasher,
  createVerificationPace,
  generateApiToken,
  noVerificationThrottle,
} from '@covgate/core';
import pino from 'pino';
import { currentUptime, machineSummary } from './support/machine.mjs';
import { storeWithToken } from './support/seed.mjs';

const { values } = parseArgs({ options: { samples: { type: 'string', default: '400' } } });
const samples = Number(values.samples);

const hasher = createTokenHasher();
const { store, tokenId: knownId } = await storeWithToken('timing', hasher);
const apiWith = (verificationPace) =>
  createApi({
    store,
    sessionSecret: 'timing-session-secret-0123456789abcdef',
    tokenHasher: hasher,
    logger: pino({ level: 'silent' }),
    auditSink: { write() {} },
    verificationThrottle: noVerificationThrottle,
    ...(verificationPace ? { verificationPace } : {}),
  });
const apis = {
  covgate: apiWith(undefined),
  'bare setTimeout': apiWith(createVerificationPace({ sleep: (ms) => sleepFor(ms) })),
};

/** A token for the known id whose secret part is wrong (fresh random hex each time). */
const wrongSecret = () => `cvg_${knownId}${generateApiToken().token.slice(-8)}`;
/** A well-formed token whose id is in no store. */
const unknownId = () => generateApiToken().token;

async function timeValidate(api, token) {
  const started = performance.now();
  const response = await api.handle(
    new Request('http://127.0.0.1/v1/auth/validate', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    }),
    { remoteAddress: '127.0.0.1' },
  );
  await response.text();
  const elapsed = performance.now() - started;
  if (response.status !== 401) throw new Error(`expected 401, got ${response.status}`);
  return elapsed;
}

// Warm up: real verifications give each pace its durations.
for (const api of Object.values(apis)) {
  for (let i = 0; i < 32; i++) await timeValidate(api, wrongSecret());
}
const times = {};
const order = [];
for (const name of Object.keys(apis)) {
  for (const kind of ['known', 'unknown']) {
    times[`${name} ${kind}`] = [];
    for (let i = 0; i < samples; i++) order.push([name, kind]);
  }
}
for (let i = order.length - 1; i > 0; i--) {
  const j = Math.floor(Math.random() * (i + 1));
  [order[i], order[j]] = [order[j], order[i]];
}
const started = Date.now();
for (const [name, kind] of order) {
  const token = kind === 'known' ? wrongSecret() : unknownId();
  times[`${name} ${kind}`].push(await timeValidate(apis[name], token));
}

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const quantile = (xs, q) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))];
function ksDistance(a, b) {
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < a.length && j < b.length) {
    const x = Math.min(a[i], b[j]);
    while (i < a.length && a[i] <= x) i++;
    while (j < b.length && b[j] <= x) j++;
    d = Math.max(d, Math.abs(i / a.length - j / b.length));
  }
  return d;
}
// Two-sample KS: D above this rejects "same distribution" at the 1 % level.
const critical = 1.628 * Math.sqrt((2 * samples) / (samples * samples));
const row = (label, xs) =>
  `| ${label} | ${quantile(xs, 0.1).toFixed(2)} | ${quantile(xs, 0.5).toFixed(2)} | ${quantile(xs, 0.9).toFixed(2)} | ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2)} |`;

console.log(`machine: ${machineSummary()}`);
console.log(
  `samples: ${samples} of each, one request at a time in random order, ${Math.round((Date.now() - started) / 1000)} s`,
);
console.log(`uptime at the end: ${currentUptime()}\n`);
console.log('| pace | presented token | p10 (ms) | median (ms) | p90 (ms) | mean (ms) |');
console.log('|---|---|---:|---:|---:|---:|');
const verdicts = [];
for (const name of Object.keys(apis)) {
  const known = sorted(times[`${name} known`]);
  const unknown = sorted(times[`${name} unknown`]);
  console.log(row(`${name} | known id, wrong secret (argon2 runs)`, known));
  console.log(row(`${name} | unknown id (the pace waits)`, unknown));
  const d = ksDistance(known, unknown);
  verdicts.push(
    `${name}: median difference (unknown - known) ${(quantile(unknown, 0.5) - quantile(known, 0.5)).toFixed(2)} ms; KS distance D = ${d.toFixed(3)} (1 % critical value ${critical.toFixed(3)}: ${d > critical ? 'distinguishable' : 'not distinguishable'}); best single-sample guess right ${(50 * (1 + d)).toFixed(1)} % of the time`,
  );
}
console.log(`\n${verdicts.join('\n')}`);
