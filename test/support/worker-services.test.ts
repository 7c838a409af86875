import { describe, expect, it } from 'vitest';
import {
  isolateWorkerServices,
  workerMysqlUrl,
  workerNumber,
  workerRedisUrl,
} from './worker-services.js';

describe('worker services', () => {
  it("gives worker N the run's database with _wN, keeping the server and options", () => {
    expect(workerMysqlUrl('mysql://root@127.0.0.1:3306/test', 2)).toBe(
      'mysql://root@127.0.0.1:3306/test_w2',
    );
    expect(workerMysqlUrl('mysql://u:p@db:3307/covgate_ci?ssl=off', 1)).toBe(
      'mysql://u:p@db:3307/covgate_ci_w1?ssl=off',
    );
    expect(workerMysqlUrl('mysql://root@127.0.0.1:3306', 1)).toBe(
      'mysql://root@127.0.0.1:3306/test_w1',
    );
  });

  it("gives worker N the N-th Redis index after the run's, and refuses one past 15", () => {
    expect(workerRedisUrl('redis://127.0.0.1:6379', 1)).toBe('redis://127.0.0.1:6379/1');
    expect(workerRedisUrl('redis://127.0.0.1:6379/8', 2)).toBe('redis://127.0.0.1:6379/10');
    expect(() => workerRedisUrl('redis://127.0.0.1:6379/14', 2)).toThrow(
      "COVGATE_REDIS_URL's index 14 leaves no index for worker 2 (Redis has 16)",
    );
  });

  it("reads vitest's pool id, and nothing outside a worker", () => {
    expect(workerNumber({ VITEST_POOL_ID: '2' })).toBe(2);
    expect(workerNumber({})).toBeUndefined();
    expect(workerNumber({ VITEST_POOL_ID: '0' })).toBeUndefined();
  });

  it('derives from the run URLs every time, so a second file in a worker is not moved twice', () => {
    const env: NodeJS.ProcessEnv = {
      COVGATE_MYSQL_URL: 'mysql://root@127.0.0.1:3306/test',
      COVGATE_REDIS_URL: 'redis://127.0.0.1:6379/0',
    };
    isolateWorkerServices(env, 2);
    isolateWorkerServices(env, 2);
    expect(env).toEqual({
      COVGATE_MYSQL_URL: 'mysql://root@127.0.0.1:3306/test_w2',
      COVGATE_REDIS_URL: 'redis://127.0.0.1:6379/2',
      COVGATE_RUN_MYSQL_URL: 'mysql://root@127.0.0.1:3306/test',
      COVGATE_RUN_REDIS_URL: 'redis://127.0.0.1:6379/0',
    });
  });

  it('leaves an environment without services alone', () => {
    const env: NodeJS.ProcessEnv = {};
    isolateWorkerServices(env, 1);
    expect(env).toEqual({});
  });
});
