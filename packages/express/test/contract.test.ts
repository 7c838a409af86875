import { createApi } from '@covgate/core';
import { listen } from '@covgate/test-support/http-server';
import { runHttpContractSuite } from '@covgate/testing/vitest';
import { covgate } from '../src/index.js';
import { expressVersions } from './support/express-versions.js';

for (const { name, express } of expressVersions) {
  runHttpContractSuite(`${name}, mounted at /coverage before the body parser`, {
    start: async (options) => {
      const app = express();
      app.use('/coverage', covgate(createApi(options)));
      app.use(express.json());
      const server = await listen(app);
      return { baseUrl: `${server.origin}/coverage`, close: server.close };
    },
  });
}
