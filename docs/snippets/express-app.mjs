// An Express application (Express 4 or 5, ES module) with covgate mounted at /coverage beside its own routes.

import { createApi, createMemoryStore } from '@covgate/core';
import { covgate } from '@covgate/express';
import express from 'express';

const sessionSecret = process.env.SESSION_SECRET;
if (!sessionSecret) throw new Error('set SESSION_SECRET (for a trial: openssl rand -hex 32)');

const api = createApi({
  store: createMemoryStore(), // @covgate/sqlite or @covgate/mysql to keep data
  sessionSecret,
  serviceToken: process.env.SERVICE_TOKEN,
  secureCookies: false, // plain-HTTP development only
});

const app = express();
app.use('/coverage', covgate(api)); // before any body parser: webhook signatures need raw bytes
app.use(express.json());
app.get('/', (_req, res) => res.send('my application'));

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : address;
  console.log(`listening on http://127.0.0.1:${port}/coverage`);
});
