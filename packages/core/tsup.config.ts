import { defineConfig } from 'tsup';

const entry = [
  'src/index.ts',
  'src/github.ts',
  'src/gitea.ts',
  'src/gitlab.ts',
  'src/storage-kit.ts',
  'src/percent.ts',
  'src/verdict.ts',
  'src/line-data.ts',
  'src/internal.ts',
];

export default defineConfig([
  { entry, format: 'esm', dts: true, clean: true, target: 'node20' },
  {
    entry,
    format: 'cjs',
    dts: true,
    target: 'node20',
    // Shared chunks as in the ES build: one copy of each class across entries, so that a
    // StoreConflictError thrown through `@covgate/core/storage-kit` is the one `instanceof`
    // checks in `@covgate/core` know.
    splitting: true,
    // arctic, badge-maker, jose and @octokit/core (and their own dependencies) are published as ES
    // modules only, which `require()` cannot load before Node 20.19: the CommonJS build carries
    // its own copy.
    noExternal: [
      'arctic',
      'badge-maker',
      /^@octokit\//,
      'before-after-hook',
      'universal-user-agent',
      'fast-content-type-parse',
      'json-with-bigint',
      'jose',
    ],
    // The CommonJS chunks are rewritten from ES modules after esbuild; that rewrite breaks a
    // class field beside an optional call in a constructor (jose's errors: "Unexpected token
    // ','"), so esbuild lowers class fields to constructor assignments first.
    esbuildOptions(options) {
      options.supported = { ...options.supported, 'class-field': false };
    },
  },
]);
