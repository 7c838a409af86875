import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The app is built with relative asset URLs; `serveDashboard` writes the `<base href>` of the
// path it serves under into index.html, so one build works under any base path.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  resolve: { conditions: ['source', 'module', 'browser', 'development|production'] },
  build: {
    outDir: fileURLToPath(new URL('../dist/app/', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: false,
    assetsInlineLimit: 0,
    reportCompressedSize: true,
  },
});
