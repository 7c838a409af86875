import { type CreateApiOptions, createApi, type Identity } from '@covgate/core';
import { createTodoList, homePage, MAX_TITLE_LENGTH, todoTitleOf } from '@covgate/example-shared';
import { covgatePlugin } from '@covgate/hapi';
import { badRequest } from '@hapi/boom';
import Hapi, { type Server } from '@hapi/hapi';

/** Where covgate's routes are registered in this application. */
export const COVGATE_PREFIX = '/coverage';

/** Options of {@link createApp}: covgate's settings plus where the server listens. */
export interface AppOptions extends CreateApiOptions {
  /** Default `localhost` (Hapi's default). */
  host?: string;
  /** Default `0`: a free port (Hapi's default). */
  port?: number;
}

const HOME_PAGE = homePage(COVGATE_PREFIX);

/**
 * An existing Hapi 21 application (a home page and a small to-do API) with covgate
 * registered under `/coverage`, and one of its own routes, `GET /api/me`, guarded by
 * covgate's API tokens through the `covgate` auth scheme. Call `start()` on the result.
 */
export async function createApp(options: AppOptions): Promise<Server> {
  const { host, port, ...covgateOptions } = options;
  const api = createApi(covgateOptions);
  const todos = createTodoList();
  const server = Hapi.server({ host, port });

  // covgate's routes take their payloads unparsed, so webhook signatures are checked over
  // the exact bytes received; the application's own routes keep Hapi's JSON parsing.
  await server.register(
    { plugin: covgatePlugin, options: { api } },
    { routes: { prefix: COVGATE_PREFIX } },
  );
  server.auth.strategy('covgate', 'covgate', { api });

  server.route([
    {
      method: 'GET',
      path: '/',
      handler: (_request, h) => h.response(HOME_PAGE).type('text/html'),
    },
    {
      method: 'GET',
      path: '/api/todos',
      handler: () => ({ todos: todos.all() }),
    },
    {
      method: 'POST',
      path: '/api/todos',
      handler: (request, h) => {
        const title = todoTitleOf(request.payload);
        if (title === null) {
          throw badRequest(`title must be 1-${MAX_TITLE_LENGTH} visible characters`);
        }
        return h.response(todos.add(title)).code(201);
      },
    },
    {
      method: 'GET',
      path: '/api/me',
      options: { auth: 'covgate' },
      handler: (request) => {
        const identity = request.auth.credentials as unknown as Identity;
        const scopes = identity.kind === 'token' ? identity.scopes : [];
        return { org: identity.orgSlug, org_id: identity.orgId, scopes };
      },
    },
  ]);
  return server;
}
