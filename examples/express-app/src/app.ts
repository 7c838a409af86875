import { STATUS_CODES } from 'node:http';
import { type CreateApiOptions, createApi } from '@covgate/core';
import { createTodoList, homePage, MAX_TITLE_LENGTH, todoTitleOf } from '@covgate/example-shared';
import { covgate } from '@covgate/express';
import express, { type ErrorRequestHandler, type Express } from 'express';

/** Where covgate is mounted in this application. */
export const COVGATE_MOUNT = '/coverage';

/** Options of {@link createApp}: covgate's own settings (`store`, `sessionSecret`...). */
export type AppOptions = CreateApiOptions;

const HOME_PAGE = homePage(COVGATE_MOUNT);

/**
 * An existing Express 5 application (a home page and a small to-do API) with covgate
 * mounted at `/coverage` beside its own routes. It does not listen: call `listen` on it.
 */
export function createApp(options: AppOptions): Express {
  const api = createApi(options);
  const todos = createTodoList();
  const app = express();
  app.disable('x-powered-by');

  // covgate comes before any body parser. It reads request bodies itself, and webhook
  // signatures are HMACs over the exact bytes received, which a parsed body no longer has.
  // An application that must parse JSON first can keep the bytes instead:
  // `app.use(express.json({ verify: covgateRawBody }))` before this line.
  // Only covgate's own paths (/health, /v1/..., /auth/...) are answered here; any other
  // path under /coverage goes on to the routes below and to this application's 404.
  app.use(COVGATE_MOUNT, covgate(api));

  const todoApi = express.Router();
  todoApi.use(express.json());
  todoApi.get('/todos', (_req, res) => {
    res.json({ todos: todos.all() });
  });
  todoApi.post('/todos', (req, res) => {
    const title = todoTitleOf(req.body);
    if (title === null) {
      res.status(400).json({ message: `title must be 1-${MAX_TITLE_LENGTH} visible characters` });
      return;
    }
    res.status(201).json(todos.add(title));
  });

  app.get('/', (_req, res) => {
    res.type('html').send(HOME_PAGE);
  });
  app.use('/api', todoApi);
  app.use((_req, res) => {
    res.status(404).json({ message: STATUS_CODES[404] });
  });
  app.use(hostErrorHandler);
  return app;
}

/**
 * The application's own error answer: client errors of its body parser (malformed JSON,
 * too large) keep their status; anything else, covgate failures included, is a 500.
 */
const hostErrorHandler: ErrorRequestHandler = (error, _req, res, _next) => {
  const status = (error as { status?: unknown }).status;
  const code = typeof status === 'number' && status >= 400 && status < 500 ? status : 500;
  if (code === 500) console.error(error);
  res.status(code).json({ message: STATUS_CODES[code] });
};
