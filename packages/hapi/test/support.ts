import { createFakeCore, type FakeCore } from '@covgate/test-support/fake-core';
import Hapi, { type Server, type ServerRegisterPluginObject } from '@hapi/hapi';
import { type CovgateHapiOptions, covgatePlugin } from '../src/index.js';

/** A started Hapi server on a free port of 127.0.0.1. */
export interface RunningHapi {
  server: Server;
  origin: string;
  core: FakeCore;
  errors: unknown[];
}

const running: Server[] = [];

/** Set-up of a test server around the covgate registration. */
export interface HapiSetup {
  prefix?: string;
  plugin?: Partial<CovgateHapiOptions>;
  /** Runs before covgate is registered, e.g. to set a default auth strategy. */
  before?: (server: Server) => void;
  /** Runs after covgate is registered, e.g. to use its auth scheme. */
  after?: (server: Server) => void;
}

/**
 * Starts a Hapi server with covgate registered (under `prefix` when given) and a host
 * route at `/other`.
 */
export async function startHapi(options: HapiSetup = {}): Promise<RunningHapi> {
  const core = createFakeCore();
  const errors: unknown[] = [];
  const server = Hapi.server({ port: 0, host: '127.0.0.1' });
  running.push(server);
  options.before?.(server);
  const registration: ServerRegisterPluginObject<CovgateHapiOptions> = {
    plugin: covgatePlugin,
    options: { api: core.api, onError: (error) => errors.push(error), ...options.plugin },
  };
  await server.register(
    registration,
    options.prefix === undefined ? {} : { routes: { prefix: options.prefix } },
  );
  options.after?.(server);
  server.route({ method: 'GET', path: '/other', handler: () => ({ host: 'other' }) });
  await server.start();
  return { server, origin: server.info.uri, core, errors };
}

/** Stops every server started by {@link startHapi}. */
export async function stopAll(): Promise<void> {
  await Promise.all(running.splice(0).map((server) => server.stop({ timeout: 0 })));
}
