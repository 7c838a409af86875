// An existing Express application (Express 4 or 5) with its own security headers, login and
// JSON parser, and covgate mounted where each of them needs it.
import { createApi, createMemoryStore } from '@covgate/core';
import { covgate } from '@covgate/express';
import express from 'express';
import helmet from 'helmet';

const { SESSION_SECRET, SERVICE_TOKEN, APP_TOKEN } = process.env;
if (!SESSION_SECRET || !APP_TOKEN) throw new Error('set SESSION_SECRET and APP_TOKEN');

const api = createApi({
  store: createMemoryStore(), // @covgate/sqlite or @covgate/mysql to keep data
  sessionSecret: SESSION_SECRET,
  serviceToken: SERVICE_TOKEN,
  secureCookies: false, // plain-HTTP development only
});

const app = express();
// 1. Security headers first, for every answer. covgate's badge still carries
//    Cross-Origin-Resource-Policy: cross-origin (covgate sets it over helmet's same-origin).
app.use(helmet());
// 2. covgate before the app's login: it authenticates its own routes (API tokens, sessions),
//    and its badge and health checks are public. Mounted after the login, every covgate
//    route would get the app's 401.
// 3. covgate before the body parsers: webhook signatures are checked over the raw bytes.
app.use('/coverage', covgate(api));
app.use(express.json());
// 4. The app's own login guards the app's own routes.
app.use((req, res, next) => {
  if (req.get('authorization') === `Bearer ${APP_TOKEN}`) next();
  else res.status(401).json({ error: 'log in to the app first' });
});
app.get('/api/me', (_req, res) => {
  res.json({ user: 'me' });
});
app.post('/api/notes', (req, res) => {
  res.status(201).json({ note: req.body });
});

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : address;
  console.log(`listening on http://127.0.0.1:${port}/coverage`);
});
