import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// `http/routes/` holds the handlers and the route table, nothing a handler shares: checks,
// input parsers and domain rules live in their own folders (docs/architecture.md). A route
// that imports another route, or a module that reaches into `routes/`, puts a shared rule
// in the wrong room; these tests name each such import.

const src = fileURLToPath(new URL('../../src/', import.meta.url));
const ROUTES = 'http/routes/';
const TABLE = 'http/routes/route-table.ts';

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(src, join(entry.parentPath, entry.name)));
}

/** Every import of core's sources between two of its files, `from -> to`, relative to `src/`. */
function imports(): { from: string; to: string }[] {
  return sourceFiles(src).flatMap((from) => {
    const text = readFileSync(join(src, from), 'utf8');
    return ts
      .preProcessFile(text, true, true)
      .importedFiles.map((file) => file.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => ({
        from,
        to: relative(src, resolve(dirname(join(src, from)), name.replace(/\.js$/, '.ts'))),
      }));
  });
}

describe('the route folder', () => {
  const all = imports();

  it('reads the imports of the route files', () => {
    expect(all.filter(({ from }) => from === TABLE).length).toBeGreaterThan(20);
  });

  it('has no route file importing another route file (the route table excepted)', () => {
    const routeToRoute = all
      .filter(({ from, to }) => from.startsWith(ROUTES) && from !== TABLE && to.startsWith(ROUTES))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(routeToRoute).toEqual([]);
  });

  it('is imported from outside only by the API, for the route table', () => {
    const intoRoutes = all
      .filter(({ from, to }) => !from.startsWith(ROUTES) && to.startsWith(ROUTES))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(intoRoutes).toEqual(['http/create-api.ts -> http/routes/route-table.ts']);
  });
});
