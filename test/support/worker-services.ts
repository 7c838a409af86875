/**
 * Gives each vitest worker its own MariaDB database and Redis index, so that test files running
 * side by side on the two cores never see each other's rows or keys. The run's
 * `COVGATE_MYSQL_URL` names a database (`test`); worker N uses `test_wN`, and every database a
 * test derives from the URL (`test_wN_cluster`...) follows. The run's `COVGATE_REDIS_URL` names
 * an index (0 when it names none); worker N uses the N-th one after it.
 */

/** Redis's default count of logical databases (`databases 16` in redis.conf). */
const REDIS_DATABASES = 16;

/** The database of `url` (a `mysql://` URL) made the worker's own. */
export function workerMysqlUrl(url: string, worker: number): string {
  const parsed = new URL(url);
  const database = parsed.pathname.slice(1) || 'test';
  parsed.pathname = `/${database}_w${worker}`;
  return parsed.toString();
}

/** The index of `url` (a `redis://` URL) moved `worker` places on. */
export function workerRedisUrl(url: string, worker: number): string {
  const parsed = new URL(url);
  const base = Number.parseInt(parsed.pathname.slice(1) || '0', 10);
  const index = base + worker;
  if (!Number.isInteger(index) || index >= REDIS_DATABASES) {
    throw new Error(
      `COVGATE_REDIS_URL's index ${base} leaves no index for worker ${worker} (Redis has ${REDIS_DATABASES})`,
    );
  }
  parsed.pathname = `/${index}`;
  return parsed.toString();
}

/** The worker's number from vitest (1 to maxWorkers), or undefined outside a worker. */
export function workerNumber(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const id = Number.parseInt(env.VITEST_POOL_ID ?? '', 10);
  return Number.isInteger(id) && id > 0 ? id : undefined;
}

/** Rewrites `env`'s service URLs to the worker's own (what the setup file does per test file). */
export function isolateWorkerServices(env: NodeJS.ProcessEnv, worker: number): void {
  if (env.COVGATE_MYSQL_URL && !env.COVGATE_RUN_MYSQL_URL) {
    env.COVGATE_RUN_MYSQL_URL = env.COVGATE_MYSQL_URL;
  }
  if (env.COVGATE_REDIS_URL && !env.COVGATE_RUN_REDIS_URL) {
    env.COVGATE_RUN_REDIS_URL = env.COVGATE_REDIS_URL;
  }
  if (env.COVGATE_RUN_MYSQL_URL) {
    env.COVGATE_MYSQL_URL = workerMysqlUrl(env.COVGATE_RUN_MYSQL_URL, worker);
  }
  if (env.COVGATE_RUN_REDIS_URL) {
    env.COVGATE_REDIS_URL = workerRedisUrl(env.COVGATE_RUN_REDIS_URL, worker);
  }
}
