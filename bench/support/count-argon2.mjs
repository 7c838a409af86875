// Preloaded into the reference server by verification-flood.mjs (`node --import`): counts
// argon2 verifications by wrapping `@node-rs/argon2`'s `verify` before covgate imports it,
// and answers the count over the IPC channel. Measurement only; never used by the server.
import { createRequire } from 'node:module';

const fromCore = createRequire(new URL('../../packages/core/package.json', import.meta.url));
const argon2 = fromCore('@node-rs/argon2');
const verify = argon2.verify;
let verifications = 0;
argon2.verify = (...args) => {
  verifications += 1;
  return verify(...args);
};
process.on('message', (message) => {
  if (message === 'argon2-count') process.send?.({ verifications });
});
// The IPC channel must not keep the server alive on its own.
process.channel?.unref();
