// One server per process, started by http-throughput.mjs: `node http-servers.mjs <kind>`.
// Prints `READY <port> <token>` when listening.
import { createServer } from 'node:http';
import { createApi, createMemoryStore, createTokenHasher, generateApiToken } from '@covgate/core';
import { createFetchHandler } from '@covgate/fetch';
import { createNodeHandler } from '@covgate/node-bridge';
import pino from 'pino';

const kind = process.argv[2];
const FIXED_BODY = JSON.stringify({ status: 'ok' });

async function covgateApi() {
  const store = createMemoryStore();
  const org = {
    id: 'org_01jbench0000000000000000000',
    slug: 'bench',
    name: 'bench',
    plan: 'enterprise',
    createdAt: new Date(),
  };
  await store.createOrganisation(org);
  const { id, token } = generateApiToken();
  const hasher = createTokenHasher();
  await store.insertToken({
    id,
    orgId: org.id,
    name: 'bench',
    scopes: ['execute'],
    agentType: '',
    hash: await hasher.hash(token),
    status: 'active',
    createdAt: new Date(),
    lastUsedAt: null,
    gracePeriodEndsAt: null,
  });
  for (let i = 0; i < 1000; i++) {
    await store.insertExecution({
      id: `exe_01jbench${String(i).padStart(17, '0')}`,
      orgId: org.id,
      repo: 'web',
      branch: 'main',
      outcome: 'pass',
      delta: '0.00',
      coverage: 80,
      createdAt: new Date(Date.now() - (1000 - i) * 1000),
    });
  }
  const api = createApi({
    store,
    sessionSecret: 'bench-session-secret-0123456789abcdef',
    tokenHasher: hasher,
    logger: pino({ base: null }, pino.destination({ dest: '/dev/null', sync: false })),
    auditSink: { write() {} },
    rateLimit: { limits: { enterprise: 1_000_000_000 } },
  });
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
    case 'covgate-fetch': {
      const { api, token } = await covgateApi();
      const server = createServer(createNodeHandler({ handle: createFetchHandler(api) }));
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
