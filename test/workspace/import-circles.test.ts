import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// No source file imports itself through others (docs/architecture.md): a circle ties its files
// into one room that can only be understood, tested and moved whole. Type-only imports count
// too: they tie the files' meanings together just the same.

const repo = fileURLToPath(new URL('../../', import.meta.url));

/** The workspace's source folders: `packages/*\/src`, `packages/dashboard/app/src`, `examples/*\/src`. */
function sourceFolders(): string[] {
  return ['packages', 'examples'].flatMap((parent) =>
    readdirSync(join(repo, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => [join(parent, entry.name, 'src'), join(parent, entry.name, 'app', 'src')])
      .filter((folder) => existsSync(join(repo, folder))),
  );
}

/** Each TypeScript file of `folder` with the files of the workspace it imports by a relative path. */
function importGraph(folder: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const entry of readdirSync(join(repo, folder), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.tsx?$/.test(entry.name) || entry.name.endsWith('.d.ts')) continue;
    const file = relative(repo, join(entry.parentPath, entry.name));
    const targets = ts
      .preProcessFile(readFileSync(join(repo, file), 'utf8'), true, true)
      .importedFiles.map((imported) => imported.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(repo, resolve(dirname(join(repo, file)), name)))
      .map((target) =>
        [
          target.replace(/\.js$/, '.ts'),
          target.replace(/\.js$/, '.tsx'),
          `${target}.ts`,
          `${target}.tsx`,
          `${target}/index.ts`,
        ].find((candidate) => existsSync(join(repo, candidate))),
      )
      .filter((target): target is string => target !== undefined);
    graph.set(file, targets);
  }
  return graph;
}

/** The circles of `graph`: its strongly connected components of more than one file, or a file importing itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (graph.get(file) ?? []).includes(file)) {
        found.push(component.sort());
      }
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('import circles', () => {
  it('finds a circle of two files and of one, and none in a chain', () => {
    expect(
      circles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['a.ts', 'c.ts']],
          ['c.ts', ['c.ts']],
          ['d.ts', ['a.ts']],
        ]),
      ),
    ).toEqual([['c.ts'], ['a.ts', 'b.ts']]);
    expect(
      circles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads the imports of every source folder', () => {
    const folders = sourceFolders();
    expect(folders).toContain('packages/core/src');
    expect(folders).toContain('packages/cli/src');
    expect(
      importGraph('packages/core/src').get('packages/core/src/outbox/feedback-host.ts'),
    ).toContain('packages/core/src/outbox/retry-policy.ts');
  });

  it('has no circle in any package', () => {
    const found = sourceFolders().flatMap((folder) => circles(importGraph(folder)));
    expect(found).toEqual([]);
  });
});
