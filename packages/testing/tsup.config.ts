import { defineConfig } from 'tsup';

const entry = ['src/index.ts', 'src/vitest.ts'];

export default defineConfig([
  { entry, format: 'esm', dts: true, clean: true, target: 'node20' },
  // Shared chunks as in the ES build: the fixtures both entries use are one module, not two.
  { entry, format: 'cjs', dts: true, target: 'node20', splitting: true },
]);
