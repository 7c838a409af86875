import { defineConfig } from 'tsup';

const shared = {
  entry: ['src/index.ts'],
  dts: true,
  target: 'es2022',
  platform: 'neutral',
} as const;

export default defineConfig([
  { ...shared, format: 'esm', clean: true },
  {
    ...shared,
    format: 'cjs',
    // esbuild's Node interop hands a CommonJS `require('openapi-fetch')` over as the whole
    // `module.exports`, so its `exports.default` (createClient) is not the default import:
    // the CommonJS build carries its own copy of openapi-fetch's ES module instead.
    noExternal: ['openapi-fetch'],
  },
]);
