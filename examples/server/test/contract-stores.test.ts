import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createApi } from '@covgate/core';
import { createMySqlStore, migrate } from '@covgate/mysql';
import { createSqliteStore } from '@covgate/sqlite';
import { runHttpContractSuite } from '@covgate/testing/vitest';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { serveApi } from '../src/reference-server.js';

const start = async (options: Parameters<typeof createApi>[0]) => {
  const served = await serveApi(createApi(options), { host: '127.0.0.1', port: 0 });
  return { baseUrl: served.url, close: served.close };
};

describe('reference server on the embedded store', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'covgate-contract-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  let n = 0;
  runHttpContractSuite('reference server on SQLite', {
    start,
    createStore: () =>
      createSqliteStore({ url: pathToFileURL(join(dir, `db-${n++}.sqlite`)).href }),
  });
});

const mysqlUrl = process.env.COVGATE_MYSQL_URL;
if (mysqlUrl) {
  describe('reference server on MySQL', () => {
    beforeAll(async () => {
      await migrate({ url: mysqlUrl });
    });
    runHttpContractSuite('reference server on MySQL', {
      start,
      createStore: async () => createMySqlStore({ url: mysqlUrl }),
    });
  });
} else {
  console.warn(
    '[covgate] HTTP contract suite on MySQL SKIPPED: set COVGATE_MYSQL_URL=mysql://root@127.0.0.1:3306/test',
  );
  describe.skipIf(process.env.COVGATE_REQUIRE_MYSQL !== '1')('HTTP contract on MySQL', () => {
    it('needs COVGATE_MYSQL_URL', () => {
      throw new Error('COVGATE_REQUIRE_MYSQL=1 but COVGATE_MYSQL_URL is unset');
    });
  });
}
