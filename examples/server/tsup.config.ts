import { defineConfig } from 'tsup';

/**
 * The two bins bundled with the workspace packages and the pure-JavaScript libraries they use:
 * Node 22 and 24 resolve and load each of drizzle's, zod's and core's hundreds of small modules
 * markedly slower than Node 20 (issue 25, deliverable 7), and one file per entry (plus a chunk
 * per store, loaded only for the store in use) takes that cost away. Left outside: native
 * modules (argon2, libsql, through their own loaders), packages that read their own files at
 * run time (the dashboard's assets, badge-maker's width tables, pino's and pino-pretty's
 * workers), ioredis and mysql2 (loaded only when configured) and undici (loaded when the
 * outbox first sends). The store packages stay
 * installed for their `drizzle` migration folders.
 */
export default defineConfig({
  entry: ['src/main.ts', 'src/admin.ts'],
  format: 'esm',
  target: 'node20',
  clean: true,
  splitting: true,
  noExternal: [
    '@covgate/core',
    '@covgate/fetch',
    '@covgate/mysql',
    '@covgate/node-bridge',
    '@covgate/sqlite',
    '@covgate/webhook-signature',
    /^drizzle-orm/,
    'zod',
    'ulid',
    'cookie',
    'arctic',
    /^@oslojs\//,
    'proxy-addr',
    'ipaddr.js',
    'rate-limiter-flexible',
    /^@octokit\//,
    'before-after-hook',
    'universal-user-agent',
    'fast-content-type-parse',
    'json-with-bigint',
  ],
  external: [
    '@covgate/dashboard',
    '@libsql/client',
    '@node-rs/argon2',
    'badge-maker',
    'ioredis',
    'mysql2',
    'pino',
    'pino-pretty',
    // Loaded only when the outbox first sends to GitHub.
    'undici',
  ],
  // CommonJS libraries inlined above call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __covgateRequire } from 'node:module'; const require = __covgateRequire(import.meta.url);",
  },
});
