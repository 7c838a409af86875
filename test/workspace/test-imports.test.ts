import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A package's tests use their own `test/` folder and the shared helpers of
// `@covgate/test-support`, never another package's `test/` folder: a helper two packages need
// belongs to the test-support package (or to `@covgate/testing` when users need it too).

const repo = fileURLToPath(new URL('../../', import.meta.url));

/** `packages/x`, `examples/x` and `docs`: the workspace packages that have a `test/` folder. */
function packagesWithTests(): string[] {
  const nested = ['packages', 'examples'].flatMap((parent) =>
    readdirSync(join(repo, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}/${entry.name}`),
  );
  return [...nested, 'docs'].filter((dir) => existsSync(join(repo, dir, 'test')));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules') return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.[cm]?[jt]sx?$/.test(entry.name) ? [path] : [];
  });
}

/** The package whose `test/` folder holds `path`, if any. */
function testFolderOwner(path: string, owners: string[]): string | undefined {
  const rel = relative(repo, path).split(sep).join('/');
  return owners.find((owner) => rel.startsWith(`${owner}/test/`));
}

/** Every relative import in a package's tests that lands in another package's `test/` folder. */
function crossPackageTestImports(): string[] {
  const owners = packagesWithTests();
  return owners.flatMap((owner) =>
    sourceFiles(join(repo, owner, 'test')).flatMap((file) => {
      const source = readFileSync(file, 'utf8');
      const specifiers = [
        ...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\bmock\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g),
      ].map((match) => match[1] as string);
      return specifiers
        .filter((specifier) => {
          const target = testFolderOwner(resolve(dirname(file), specifier), owners);
          return target !== undefined && target !== owner;
        })
        .map((specifier) => `${relative(repo, file)} imports ${specifier}`);
    }),
  );
}

describe('test imports across packages', () => {
  it("no package's tests import another package's test folder", () => {
    expect(crossPackageTestImports()).toEqual([]);
  });

  it('finds the packages with tests it checks, the adapters and the reference server among them', () => {
    expect(packagesWithTests()).toEqual(
      expect.arrayContaining(['packages/express', 'packages/hapi', 'examples/server', 'docs']),
    );
  });
});
