import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { writeReleaseNotes } from '../../docs/scripts/release-notes.mjs';

// A release as `changeset version` makes it, in a copy of the workspace's manifests and
// changesets: every published package gets its CHANGELOG.md and version, and the docs site's
// release-notes page collects them.

const repo = fileURLToPath(new URL('../../', import.meta.url));
const changesetBin = join(repo, 'node_modules', '.bin', 'changeset');

/** Workspace package folders (relative), from pnpm-workspace.yaml. */
function workspaceDirs(): string[] {
  const { packages } = parse(readFileSync(join(repo, 'pnpm-workspace.yaml'), 'utf8')) as {
    packages: string[];
  };
  return packages.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(join(repo, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) =>
            existsSync(join(repo, pattern.slice(0, -2), entry.name, 'package.json')),
          )
          .map((entry) => join(pattern.slice(0, -2), entry.name))
      : [pattern],
  );
}

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
}
const config = JSON.parse(readFileSync(join(repo, '.changeset', 'config.json'), 'utf8')) as {
  ignore: string[];
};
const manifests = workspaceDirs().map((dir) => ({
  dir,
  manifest: JSON.parse(readFileSync(join(repo, dir, 'package.json'), 'utf8')) as Manifest,
}));
const published = manifests.filter(
  ({ manifest }) => !manifest.private && !config.ignore.includes(manifest.name),
);
const pending = readdirSync(join(repo, '.changeset')).filter(
  (file) => file.endsWith('.md') && file !== 'README.md',
);

describe('a release made by changesets', () => {
  let copy: string;
  let notesBefore: string;
  beforeAll(async () => {
    copy = await mkdtemp(join(tmpdir(), 'covgate-changesets-'));
    for (const file of ['package.json', 'pnpm-workspace.yaml']) {
      await cp(join(repo, file), join(copy, file));
    }
    await cp(join(repo, '.changeset'), join(copy, '.changeset'), { recursive: true });
    for (const { dir } of manifests) {
      await mkdir(join(copy, dir), { recursive: true });
      await cp(join(repo, dir, 'package.json'), join(copy, dir, 'package.json'));
    }
    notesBefore = await readFile(
      await writeReleaseNotes({ repoDir: copy, outFile: join(copy, 'before.md') }),
      'utf8',
    );
    // changesets names each entry's commit: it needs the changesets in a git history.
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: copy,
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@t',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@t',
        },
      });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'workspace');
    execFileSync(changesetBin, ['version'], { cwd: copy, stdio: 'pipe' });
  }, 120_000);
  afterAll(async () => {
    if (copy) await rm(copy, { recursive: true, force: true });
  });

  it('before the release, lists every pending changeset as unreleased', () => {
    expect(pending.length).toBeGreaterThan(0);
    expect(notesBefore).toContain(`${pending.length} changes merged since the last release`);
    expect(notesBefore).toContain('No release has been cut yet');
  });

  it('writes a CHANGELOG.md with the new version for each published package, none for the ignored ones', async () => {
    expect(published.length).toBeGreaterThan(5);
    for (const { dir, manifest } of published) {
      const bumped = JSON.parse(
        await readFile(join(copy, dir, 'package.json'), 'utf8'),
      ) as Manifest;
      const changelog = await readFile(join(copy, dir, 'CHANGELOG.md'), 'utf8');
      expect(changelog.startsWith(`# ${manifest.name}\n\n## ${bumped.version}\n`), dir).toBe(true);
      expect(bumped.version).not.toBe(manifest.version);
    }
    for (const { dir, manifest } of manifests) {
      if (config.ignore.includes(manifest.name)) {
        expect(existsSync(join(copy, dir, 'CHANGELOG.md')), dir).toBe(false);
      }
    }
    expect(readdirSync(join(copy, '.changeset')).filter((f) => f.endsWith('.md'))).toEqual([]);
  });

  it('the release-notes page then holds each package changelog under its name', async () => {
    const notes = await readFile(
      await writeReleaseNotes({ repoDir: copy, outFile: join(copy, 'after.md') }),
      'utf8',
    );
    expect(notes).toContain('## Unreleased\n\nNothing merged since the last release.');
    for (const { dir, manifest } of published) {
      const { version } = JSON.parse(
        await readFile(join(copy, dir, 'package.json'), 'utf8'),
      ) as Manifest;
      expect(notes).toContain(`### ${manifest.name}\n\n#### ${version}\n`);
    }
  });
});
