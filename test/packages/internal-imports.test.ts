import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `@covgate/core/internal` carries no semver promise: a published package that imports it must
// require the very core it was released with, and be released with it.
const root = fileURLToPath(new URL('../../', import.meta.url));
const packagesDir = join(root, 'packages');

const sourcesOf = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));

const published = readdirSync(packagesDir)
  .map((name) => ({
    dir: join(packagesDir, name),
    manifest: JSON.parse(readFileSync(join(packagesDir, name, 'package.json'), 'utf8')),
  }))
  .filter(({ manifest }) => manifest.private !== true && manifest.name !== '@covgate/core');

const importsInternal = published.filter(({ dir }) =>
  sourcesOf(join(dir, 'src')).some((file) =>
    readFileSync(file, 'utf8').includes("from '@covgate/core/internal'"),
  ),
);
const fixedGroups: string[][] = JSON.parse(
  readFileSync(join(root, '.changeset', 'config.json'), 'utf8'),
).fixed;

describe('published packages that import @covgate/core/internal', () => {
  it('are found (the check below checks something)', () => {
    expect(importsInternal.map(({ manifest }) => manifest.name)).toContain('@covgate/testing');
  });

  it.each(importsInternal.map(({ manifest }) => [manifest.name, manifest]))(
    '%s requires exactly its own release of core and is released with it',
    (name, manifest) => {
      const wanted =
        manifest.peerDependencies?.['@covgate/core'] ?? manifest.dependencies?.['@covgate/core'];
      expect(wanted).toBe('workspace:*');
      expect(
        fixedGroups.some((group) => group.includes('@covgate/core') && group.includes(name)),
      ).toBe(true);
    },
  );
});
