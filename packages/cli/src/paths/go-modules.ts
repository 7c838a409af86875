import { readFile } from 'node:fs/promises';
import { posix } from 'node:path';
import { cleanPath, joinPath, relativeTo } from './normalise.js';

/** A Go module: its path (`example.com/shapes`) and the absolute folder of its `go.mod`. */
export interface GoModule {
  path: string;
  folder: string;
}

/**
 * The Go modules a cover profile's import paths may belong to: the nearest `go.mod` from
 * `folder` up to the repository root, and the modules a `go.work` found on the way `use`s.
 * Empty when there are none (the profile's paths then stay import paths).
 *
 * @param folder - where to start (the report's folder, or its `--path-prefix`), absolute
 * @param repoRoot - where to stop, absolute
 */
export async function findGoModules(folder: string, repoRoot: string): Promise<GoModule[]> {
  const modules: GoModule[] = [];
  const root = cleanPath(repoRoot);
  let dir = cleanPath(folder);
  let foundMod = false;
  for (;;) {
    if (!foundMod) {
      const path = moduleOf(await readText(`${dir}/go.mod`));
      if (path !== undefined) {
        modules.push({ path, folder: dir });
        foundMod = true;
      }
    }
    const work = await readText(`${dir}/go.work`);
    if (work !== undefined) {
      for (const use of usesOf(work)) {
        const useFolder = joinPath(dir, use);
        const path = moduleOf(await readText(`${useFolder}/go.mod`));
        if (path !== undefined && !modules.some((m) => m.folder === useFolder))
          modules.push({ path, folder: useFolder });
      }
      break;
    }
    const parent = posix.dirname(dir);
    if (relativeTo(root, dir) === undefined || dir === root || parent === dir) break;
    dir = parent;
  }
  // The longest module path first, so a nested module wins over the one around it.
  return modules.sort((a, b) => b.path.length - a.path.length);
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The module path of a `go.mod` (`module example.com/x`, quoted or not). */
export function moduleOf(goMod: string | undefined): string | undefined {
  const match = goMod && /^\s*module\s+"?([^\s"]+)"?\s*(?:\/\/.*)?$/m.exec(goMod);
  return match ? match[1] : undefined;
}

/** The folders a `go.work` `use`s, in either form (`use ./a`, `use ( ./a ./b )`). */
export function usesOf(goWork: string): string[] {
  const text = goWork.replace(/\/\/[^\n]*/g, '');
  const folders: string[] = [];
  for (const match of text.matchAll(/^\s*use\s*(?:\(([^)]*)\)|(\S+))/gm)) {
    const list = match[1] ?? match[2] ?? '';
    for (const word of list.split(/\s+/)) if (word !== '') folders.push(word.replace(/^"|"$/g, ''));
  }
  return folders;
}

/**
 * A cover profile's file (`example.com/shapes/x.go`) as a path: inside the module it belongs
 * to, joined to the module's folder (absolute); else undefined (an import path of no module
 * found, kept as it is).
 */
export function goFilePath(importPath: string, modules: readonly GoModule[]): string | undefined {
  for (const module of modules) {
    if (importPath.startsWith(`${module.path}/`))
      return joinPath(module.folder, importPath.slice(module.path.length + 1));
  }
  return undefined;
}
