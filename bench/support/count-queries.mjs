// Preloaded into the reference server by scale-load.mjs (`node --import`): counts the
// statements the MySQL store sends and times them, and times the waits for a pooled
// connection, by wrapping mysql2's pool and connection methods before covgate imports them;
// answers the totals over the IPC channel. Measurement only; never used by the server.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const fromServer = createRequire(new URL('../../examples/server/package.json', import.meta.url));
const promise = fromServer('mysql2/promise');
// Not among the package's exports: required by its path.
const mysql2Dir = dirname(fromServer.resolve('mysql2/package.json'));
const BasePool = fromServer(join(mysql2Dir, 'lib/base/pool.js'));

const totals = { statements: 0, statementMs: 0, waits: 0, waitMs: 0 };

/** Wraps `method` of `prototype` (promise-returning) to count its calls and their time. */
function timeStatements(prototype, method) {
  const original = prototype[method];
  prototype[method] = function timed(...args) {
    const started = performance.now();
    totals.statements += 1;
    const settled = () => {
      totals.statementMs += performance.now() - started;
    };
    const result = original.apply(this, args);
    result.then(settled, settled);
    return result;
  };
}

for (const target of [promise.PromisePool.prototype, promise.PromiseConnection.prototype]) {
  timeStatements(target, 'query');
  timeStatements(target, 'execute');
}

// The callback pool's getConnection: the wait for a free (or new) connection.
const pool = BasePool.prototype;
const getConnection = pool.getConnection;
pool.getConnection = function timedGetConnection(callback) {
  const started = performance.now();
  return getConnection.call(this, (...results) => {
    totals.waits += 1;
    totals.waitMs += performance.now() - started;
    callback(...results);
  });
};

process.on('message', (message) => {
  if (message === 'query-count') process.send?.({ ...totals });
});
// The IPC channel must not keep the server alive on its own.
process.channel?.unref();
