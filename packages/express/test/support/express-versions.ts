import { createRequire } from 'node:module';
import express5 from 'express';
import express4 from 'express4';

const require = createRequire(import.meta.url);

/**
 * Both majors the peer range admits (`^4.21.2 || ^5.1.0`); the adapter's tests run under each.
 * Express 4 is installed as the `express4` alias; its types differ in details the tests do
 * not use, so it is typed as Express 5.
 */
export const expressVersions = [
  {
    name: 'Express 5',
    major: '5',
    express: express5,
    version: (require('express/package.json') as { version: string }).version,
  },
  {
    name: 'Express 4',
    major: '4',
    express: express4 as unknown as typeof express5,
    version: (require('express4/package.json') as { version: string }).version,
  },
];
