// One server per process, started by http-throughput.mjs: `node http-servers.mjs <kind>`.
// Prints `READY <port> <token>` when listening.
import { createServer } from 'node:http';
import { createApi, createTokenHasher } from '@covgate/core';
import { batchedLogDestination } from '@covgate/core/internal';
import { createFetchHandler } from '@covgate/fetch';
import { createNodeHandler } from '@covgate/node-bridge';
import { buildExecution } from '@covgate/testing';
import pino from 'pino';
import { storeWithToken } from './support/seed.mjs';

const kind = process.argv[2];
const FIXED_BODY = JSON.stringify({ status: 'ok' });
// Knobs of `http-throughput.mjs --bounds` only: what a covgate server would gain without a
// rule of the spec (the access line, the rate limit). Never set in the measured rows.
const silentLogger = process.env.COVGATE_BENCH_LOGGER === 'silent';
const rateLimitOff = process.env.COVGATE_BENCH_RATE_LIMIT === 'off';

async function covgateApi() {
  const hasher = createTokenHasher();
  const { store, org, token } = await storeWithToken('bench', hasher);
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
    logger: silentLogger
      ? pino({ level: 'silent' })
      : pino({ base: null }, batchedLogDestination('/dev/null')),
    auditSink: { write() {} },
    rateLimit: {
      enabled: !rateLimitOff,
      limits: { enterprise: 1_000_000_000 },
      organisationLimits: { enterprise: 1_000_000_000 },
    },
  });
  // Warm the verified-token cache: the load must not start with 50 argon2 verifications.
  const warm = await api.handle(
    new Request('http://127.0.0.1/v1/executions?org=bench&repo=web&limit=10', {
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  if (warm.status !== 200) throw new Error(`warm-up request answered ${warm.status}`);
  return { api, token };
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

const { port, token } = await start();
process.stdout.write(`READY ${port} ${token ?? '-'}\n`);
process.on('SIGINT', () => process.exit(0));
