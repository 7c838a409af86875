// covgate as a Fetch handler, `(Request) => Promise<Response>`, served here on Node.
import { createApi, createMemoryStore } from '@covgate/core';
import { createFetchHandler } from '@covgate/fetch';
import { serve } from '@hono/node-server';

const sessionSecret = process.env.SESSION_SECRET;
if (!sessionSecret) throw new Error('set SESSION_SECRET (for a trial: openssl rand -hex 32)');

const api = createApi({
  store: createMemoryStore(), // @covgate/sqlite or @covgate/mysql to keep data
  sessionSecret,
  serviceToken: process.env.SERVICE_TOKEN,
  secureCookies: false, // plain-HTTP development only
  basePath: '/coverage', // the API answers under /coverage, 404 elsewhere
});
const handler = createFetchHandler(api);

// Bun: Bun.serve({ fetch: handler }); Deno: Deno.serve(handler); Workers: export default { fetch: handler }
serve(
  {
    fetch: (request) => handler(request),
    port: Number(process.env.PORT ?? 3000),
    hostname: '127.0.0.1',
  },
  (info) => {
    console.log(`listening on http://127.0.0.1:${info.port}/coverage`);
  },
);
