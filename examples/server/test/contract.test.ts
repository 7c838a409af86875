import { createApi } from '@covgate/core';
import { runHttpContractSuite } from '@covgate/testing/vitest';
import { serveApi } from '../src/reference-server.js';

runHttpContractSuite('reference server (node:http + Fetch adapter)', {
  start: async (options) => {
    const served = await serveApi(createApi(options), { host: '127.0.0.1', port: 0 });
    return { baseUrl: served.url, close: served.close };
  },
});

runHttpContractSuite('Fetch adapter under a base path', {
  start: async (options) => {
    const served = await serveApi(createApi({ ...options, basePath: '/coverage' }), {
      host: '127.0.0.1',
      port: 0,
    });
    return { baseUrl: `${served.url}/coverage`, close: served.close };
  },
});
