// A Hapi 21 application (ES module) with covgate registered under /coverage.

import { createApi, createMemoryStore } from '@covgate/core';
import { covgatePlugin } from '@covgate/hapi';
import Hapi from '@hapi/hapi';

const sessionSecret = process.env.SESSION_SECRET;
if (!sessionSecret) throw new Error('set SESSION_SECRET (for a trial: openssl rand -hex 32)');

const api = createApi({
  store: createMemoryStore(), // @covgate/sqlite or @covgate/mysql to keep data
  sessionSecret,
  serviceToken: process.env.SERVICE_TOKEN,
  secureCookies: false, // plain-HTTP development only
});

const server = Hapi.server({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
await server.register(
  { plugin: covgatePlugin, options: { api } },
  { routes: { prefix: '/coverage' } },
);
server.route({ method: 'GET', path: '/', handler: () => 'my application' });
await server.start();
console.log(`listening on ${server.info.uri}/coverage`);
