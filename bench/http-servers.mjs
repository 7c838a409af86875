// One server per process, started by http-throughput.mjs: `node http-servers.mjs <kind>`.
// Prints `READY <port> <token>` when listening.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createApi, createTokenHasher } from '@covgate/core';
import { batchedLogDestination, executionToJson } from '@covgate/core/internal';
import { createFetchHandler } from '@covgate/fetch';
import { createNodeHandler } from '@covgate/node-bridge';
import { buildExecution } from '@covgate/testing';
import pino from 'pino';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { storeWithToken } from './support/seed.mjs';

const kind = process.argv[2];
const FIXED_BODY = JSON.stringify({ status: 'ok' });
// Knobs of `http-throughput.mjs --bounds` only: what a covgate server would gain without a
// rule of the spec (the access line, the rate limit). Never set in the measured rows.
const silentLogger = process.env.COVGATE_BENCH_LOGGER === 'silent';
const rateLimitOff = process.env.COVGATE_BENCH_RATE_LIMIT === 'off';

const LIST_URL = 'http://127.0.0.1/v1/executions?org=bench&repo=web&limit=10';
const PLAN_LIMIT = 1_000_000_000;

/** The access log of every server that writes one: the reference server's destination. */
function accessLogger() {
  return silentLogger
    ? pino({ level: 'silent' })
    : pino({ base: null }, batchedLogDestination('/dev/null'));
}

async function covgateApi() {
  const hasher = createTokenHasher();
  const { store, org, token, tokenId } = await storeWithToken('bench', hasher);
  for (let i = 0; i < 1000; i++) {
    await store.insertExecution(
      buildExecution({
        id: `exe_01jbench${String(i).padStart(17, '0')}`,
        orgId: org.id,
        repo: 'web',
        createdAt: new Date(Date.now() - (1000 - i) * 1000),
        // The rows this bench has always listed: no base branch, no deciding rule.
        baseBranch: null,
        decidedBy: null,
      }),
    );
  }
  const api = createApi({
    store,
    sessionSecret: 'bench-session-secret-0123456789abcdef',
    tokenHasher: hasher,
    // The reference server's production destination, writing to /dev/null.
    logger: accessLogger(),
    auditSink: { write() {} },
    rateLimit: {
      enabled: !rateLimitOff,
      limits: { enterprise: PLAN_LIMIT },
      organisationLimits: { enterprise: PLAN_LIMIT },
    },
  });
  // Warm the verified-token cache: the load must not start with 50 argon2 verifications.
  const warm = await api.handle(
    new Request(LIST_URL, { headers: { authorization: `Bearer ${token}` } }),
  );
  if (warm.status !== 200) throw new Error(`warm-up request answered ${warm.status}`);
  return { api, token, store, org, tokenId, hasher, listBody: await warm.text() };
}

const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id covgate answers with: the caller's when well-formed, else a new UUID. */
function requestIdOf(incoming) {
  return typeof incoming === 'string' && ACCEPTED_REQUEST_ID.test(incoming)
    ? incoming
    : randomUUID();
}

/** The fields of covgate's access line. */
function accessLine(requestId, method, url, status, durationMs, remoteAddress, userAgent) {
  const query = url.indexOf('?');
  return {
    requestId,
    method,
    path: query === -1 ? url : url.slice(0, query),
    status,
    durationMs: Math.round(durationMs * 100) / 100,
    remoteAddress,
    userAgent,
  };
}

/**
 * What a Fastify user would write for covgate's authenticated list: the same memory store
 * and page, one pino access line per request through the same destination, the request id,
 * a bearer token looked up in a map of tokens already verified with argon2 (covgate's
 * verified-token cache, whose TTL it checks), per-token and per-organisation limits with
 * rate-limiter-flexible and their three `RateLimit-*` headers, `Vary: Origin`.
 */
async function fastifySameWork() {
  const { default: Fastify } = await import('fastify');
  const { store, org, token, tokenId, hasher, listBody } = await covgateApi();
  const logger = accessLogger();
  const verified = new Map();
  const ttlMs = 10_000;
  // One verification per token at a time, as covgate's cache does: when the entry expires,
  // 50 connections waiting on 50 argon2 verifications at once would time wrk out.
  const verifying = new Map();
  const verify = async (raw) => {
    const hash = (await store.findTokenById(tokenId)).hash;
    if (!(await hasher.verify(hash, raw))) return null;
    const entry = {
      tokenId,
      orgId: org.id,
      slug: org.slug,
      plan: org.plan,
      until: Date.now() + ttlMs,
    };
    verified.set(raw, entry);
    return entry;
  };
  const remember = (raw) => {
    let pending = verifying.get(raw);
    if (pending === undefined) {
      pending = verify(raw).finally(() => verifying.delete(raw));
      verifying.set(raw, pending);
    }
    return pending;
  };
  const tokenLimiter = new RateLimiterMemory({ points: PLAN_LIMIT, duration: 60, keyPrefix: 't' });
  const orgLimiter = new RateLimiterMemory({ points: PLAN_LIMIT, duration: 60, keyPrefix: 'o' });
  const app = Fastify({
    logger: false,
    genReqId: (req) => requestIdOf(req.headers['x-request-id']),
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('vary', 'Origin');
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    logger.info(
      accessLine(
        request.id,
        request.method,
        request.url,
        reply.statusCode,
        reply.elapsedTime,
        request.ip,
        request.headers['user-agent'],
      ),
      'request',
    );
  });
  app.get('/v1/executions', async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const raw = header.startsWith('Bearer ') ? header.slice(7) : '';
    let identity = verified.get(raw);
    if (identity === undefined || identity.until <= Date.now()) identity = await remember(raw);
    if (identity === null) return reply.code(401).send({ error: 'invalid token' });
    const own = await tokenLimiter.consume(identity.tokenId, 1);
    const shared = await orgLimiter.consume(identity.orgId, 1);
    const closer = shared.remainingPoints < own.remainingPoints ? shared : own;
    reply.header('ratelimit-limit', String(PLAN_LIMIT));
    reply.header('ratelimit-remaining', String(closer.remainingPoints));
    reply.header('ratelimit-reset', String(Math.max(1, Math.ceil(closer.msBeforeNext / 1000))));
    const { org: slug, repo, limit } = request.query;
    if (slug !== identity.slug) return reply.code(403).send({ error: 'forbidden' });
    const [records, total] = await Promise.all([
      store.listExecutions({ orgId: identity.orgId, repo, limit: Number(limit ?? 10) }),
      store.countExecutions(identity.orgId, repo, {}),
    ]);
    reply.type('application/json; charset=utf-8');
    return JSON.stringify({ executions: records.map(executionToJson), total });
  });
  const peer = await app.inject({
    url: LIST_URL.slice(16),
    headers: { authorization: `Bearer ${token}` },
  });
  if (peer.body !== listBody) throw new Error("the Fastify peer does not answer covgate's page");
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: app.server.address().port, token };
}

/**
 * What a Hapi user would write for covgate's `GET /health`: the same answer with one pino
 * access line per request through the same destination, the request id and `Vary: Origin`.
 */
async function hapiSameWork(Hapi) {
  const server = Hapi.server({ port: 0, host: '127.0.0.1' });
  const logger = accessLogger();
  server.ext('onRequest', (request, h) => {
    request.app.requestId = requestIdOf(request.headers['x-request-id']);
    request.app.started = performance.now();
    return h.continue;
  });
  server.ext('onPreResponse', (request, h) => {
    const { response } = request;
    const headers = response.isBoom ? response.output.headers : response.headers;
    headers.vary = 'Origin';
    headers['x-request-id'] = request.app.requestId;
    return h.continue;
  });
  server.events.on('response', (request) => {
    logger.info(
      accessLine(
        request.app.requestId,
        request.method.toUpperCase(),
        request.path,
        request.response.statusCode,
        performance.now() - request.app.started,
        request.info.remoteAddress,
        request.headers['user-agent'],
      ),
      'request',
    );
  });
  server.route({ method: 'GET', path: '/health', handler: () => ({ status: 'ok' }) });
  await server.start();
  return { port: server.info.port };
}

function listen(server) {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(server.address().port)),
  );
}

async function start() {
  switch (kind) {
    case 'bare-node': {
      const server = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(FIXED_BODY);
      });
      return { port: await listen(server) };
    }
    case 'hono': {
      const { Hono } = await import('hono');
      const { serve } = await import('@hono/node-server');
      const app = new Hono();
      app.get('/health', (c) => c.json({ status: 'ok' }));
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
      await new Promise((resolve) => server.once('listening', resolve));
      return { port: server.address().port };
    }
    case 'fastify': {
      const { default: Fastify } = await import('fastify');
      const app = Fastify();
      app.get('/health', async () => ({ status: 'ok' }));
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { port: app.server.address().port };
    }
    case 'covgate-fetch': {
      const { api, token } = await covgateApi();
      const server = createServer(createNodeHandler({ handle: createFetchHandler(api) }));
      return { port: await listen(server), token };
    }
    case 'covgate-hono-listener': {
      const { getRequestListener } = await import('@hono/node-server');
      const { api, token } = await covgateApi();
      const handler = createFetchHandler(api);
      const server = createServer(
        getRequestListener((request, env) =>
          handler(request, { remoteAddress: env.incoming.socket.remoteAddress }),
        ),
      );
      return { port: await listen(server), token };
    }
    case 'bare-express': {
      const { default: express } = await import('express');
      const app = express();
      app.get('/health', (_req, res) => res.json({ status: 'ok' }));
      return { port: await listen(createServer(app)) };
    }
    case 'covgate-express': {
      const { default: express } = await import('express');
      const { covgate } = await import('@covgate/express');
      const { api, token } = await covgateApi();
      const app = express();
      app.use(covgate(api));
      return { port: await listen(createServer(app)), token };
    }
    case 'fastify-same-work':
      return fastifySameWork();
    case 'hapi-same-work':
      return hapiSameWork(await import('@hapi/hapi'));
    case 'bare-hapi':
    case 'covgate-hapi': {
      const Hapi = await import('@hapi/hapi');
      const server = Hapi.server({ port: 0, host: '127.0.0.1' });
      let token;
      if (kind === 'bare-hapi') {
        server.route({ method: 'GET', path: '/health', handler: () => ({ status: 'ok' }) });
      } else {
        const { covgatePlugin } = await import('@covgate/hapi');
        const built = await covgateApi();
        token = built.token;
        await server.register({ plugin: covgatePlugin, options: { api: built.api } });
      }
      await server.start();
      return { port: server.info.port, token };
    }
    default:
      throw new Error(`unknown server kind: ${kind}`);
  }
}

/**
 * `COVGATE_BENCH_CPU_PROFILE=<file>` (http-profile.mjs): a CPU profile of the requests only,
 * started by `SIGUSR2` once the server is warm and written to the file at `SIGINT`.
 */
async function profileOnSignal(file, intervalMicros) {
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalMicros });
  process.on('SIGUSR2', () => void session.post('Profiler.start'));
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
  };
}

const profileFile = process.env.COVGATE_BENCH_CPU_PROFILE;
const writeProfile = profileFile
  ? await profileOnSignal(
      profileFile,
      Number(process.env.COVGATE_BENCH_CPU_PROFILE_INTERVAL ?? 100),
    )
  : async () => {};
const { port, token } = await start();
process.stdout.write(`READY ${port} ${token ?? '-'}\n`);
process.on('SIGINT', () => writeProfile().finally(() => process.exit(0)));
