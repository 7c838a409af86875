import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The packages published for use outside covgate (env-filter, webhook-signature) promise to
// need nothing else: these tests hold each of them to it.

/** The module specifiers `source` imports, exports from or requires. */
export function importSpecifiers(source: string): string[] {
  const patterns = [
    /\b(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1] ?? ''));
}

/**
 * Tests that package `name`, in the folder `packageDir`, stands alone: each of its sources
 * imports only relative modules and `node:` built-ins, and it declares no runtime or peer
 * dependencies.
 */
export function describeStandalonePackage(name: string, packageDir: URL): void {
  const dir = fileURLToPath(packageDir);
  const sourceDir = `${dir}src/`;

  describe(`${name} stands alone`, () => {
    const sources = readdirSync(sourceDir).filter((file) => file.endsWith('.ts'));

    it('has sources to check', () => {
      expect(sources).toContain('index.ts');
    });

    it.each(sources)('%s imports only relative modules and node: built-ins', (file) => {
      const specifiers = importSpecifiers(readFileSync(sourceDir + file, 'utf8'));
      for (const specifier of specifiers) {
        const isBuiltin =
          specifier.startsWith('node:') && builtinModules.includes(specifier.slice(5));
        expect(specifier.startsWith('./') || isBuiltin, specifier).toBe(true);
      }
    });

    it('declares no runtime or peer dependencies', () => {
      const manifest = JSON.parse(readFileSync(`${dir}package.json`, 'utf8'));
      for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
        expect(Object.keys(manifest[field] ?? {}), field).toEqual([]);
      }
    });

    it('recognises a bare import as one, so the check above can fail', () => {
      expect(importSpecifiers("import { z } from 'zod';\nimport 'pino';")).toEqual(['zod', 'pino']);
    });
  });
}
