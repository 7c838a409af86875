import { createConnection } from 'mysql2/promise';
import { workerMysqlUrl } from './worker-services.js';

/**
 * Vitest global setup: makes each worker's MariaDB database (see worker-services.ts) before the
 * workers start. Without `COVGATE_MYSQL_URL` it does nothing; a server it cannot reach is left
 * to the MySQL suites, which skip or fail with their own message.
 */
export default async function makeWorkerDatabases(): Promise<void> {
  const url = process.env.COVGATE_MYSQL_URL;
  const workers = Number.parseInt(process.env.COVGATE_TEST_WORKERS ?? '1', 10);
  if (!url) return;
  const server = new URL(url);
  server.pathname = '/';
  let admin: Awaited<ReturnType<typeof createConnection>>;
  try {
    admin = await createConnection(server.toString());
  } catch {
    return;
  }
  try {
    for (let worker = 1; worker <= workers; worker += 1) {
      const database = new URL(workerMysqlUrl(url, worker)).pathname.slice(1);
      await admin.query(`CREATE DATABASE IF NOT EXISTS \`${database}\``);
    }
  } finally {
    await admin.end();
  }
}
