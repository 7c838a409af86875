import { createApi } from '@covgate/core';
import { runHttpContractSuite } from '@covgate/testing/vitest';
import Hapi from '@hapi/hapi';
import { covgatePlugin } from '../src/index.js';

runHttpContractSuite('Hapi, registered under /coverage', {
  start: async (options) => {
    const server = Hapi.server({ port: 0, host: '127.0.0.1' });
    await server.register(
      { plugin: covgatePlugin, options: { api: createApi(options) } },
      { routes: { prefix: '/coverage' } },
    );
    await server.start();
    return {
      baseUrl: `${server.info.uri}/coverage`,
      close: () => server.stop({ timeout: 0 }),
    };
  },
});
