// Generates docs/release-notes.md, the site's release notes: the changesets not released yet
// (.changeset/*.md) and each published package's CHANGELOG.md, which `changeset version` writes
// at every release from those same changesets.
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const docsDir = fileURLToPath(new URL('..', import.meta.url));

/** Package folders of the workspace that are published (not private, not ignored by changesets). */
async function publishedPackages(repoDir) {
  const config = JSON.parse(await readFile(join(repoDir, '.changeset', 'config.json'), 'utf8'));
  const ignored = new Set(config.ignore ?? []);
  const found = [];
  for (const parent of ['packages', 'examples']) {
    for (const name of (await readdir(join(repoDir, parent))).sort()) {
      const manifestPath = join(repoDir, parent, name, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
      if (manifest.private || ignored.has(manifest.name)) continue;
      found.push({
        name: manifest.name,
        version: manifest.version,
        dir: join(repoDir, parent, name),
      });
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** A changeset file: its front matter (package -> bump) and its summary. */
function parseChangeset(text, file) {
  const match = /^---\n([\s\S]*?)---\n([\s\S]*)$/.exec(text);
  if (!match) throw new Error(`.changeset/${file} has no front matter`);
  return { releases: parse(match[1]) ?? {}, summary: match[2].trim() };
}

/** Markdown headings moved `levels` deeper, so a changelog's `## 1.2.0` nests under ours. */
function demote(markdown, levels) {
  let inFence = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^(```|~~~)/.test(line)) inFence = !inFence;
      return !inFence && /^#{1,6} /.test(line) ? `${'#'.repeat(levels)}${line}` : line;
    })
    .join('\n');
}

/**
 * Writes the release notes page of the repository at `repoDir` (this one by default) to
 * `outFile` (its docs/release-notes.md by default); returns the path written.
 */
export async function writeReleaseNotes({
  repoDir = join(docsDir, '..'),
  outFile = join(repoDir, 'docs', 'release-notes.md'),
} = {}) {
  const packages = await publishedPackages(repoDir);
  const names = new Set(packages.map((p) => p.name));
  const changesetDir = join(repoDir, '.changeset');
  const files = (await readdir(changesetDir)).filter((f) => f.endsWith('.md') && f !== 'README.md');
  const pending = [];
  for (const file of files.sort()) {
    const { releases, summary } = parseChangeset(
      await readFile(join(changesetDir, file), 'utf8'),
      file,
    );
    for (const name of Object.keys(releases)) {
      if (!names.has(name))
        throw new Error(`.changeset/${file} names ${name}, not a published package`);
    }
    pending.push({ releases, summary });
  }

  const lines = [
    '# Release notes',
    '',
    'What changed in the published packages. Every user-facing change is merged with a',
    'changeset (`.changeset/*.md`); at a release `changeset version` turns them into each',
    "package's `CHANGELOG.md` (newest release first) and its new version; this page collects both. Before moving to a",
    'new release, read [upgrading](operations/upgrading.md).',
    '',
    '## Unreleased',
    '',
  ];
  if (pending.length === 0) lines.push('Nothing merged since the last release.', '');
  else {
    lines.push(
      `${pending.length} changes merged since the last release, each with the packages it moves (major, minor or patch).`,
      '',
    );
    for (const { releases, summary } of pending) {
      // A changeset naming no package (the docs site, say) is released with none.
      const bumps =
        Object.entries(releases)
          .map(([name, bump]) => `\`${name}\` ${bump}`)
          .join(', ') || 'no package';
      const [first, ...rest] = summary.split('\n');
      lines.push(`- ${bumps}: ${first}`, ...rest.map((line) => (line ? `  ${line}` : '')), '');
    }
  }
  lines.push('## Released', '');
  const released = packages.filter((p) => existsSync(join(p.dir, 'CHANGELOG.md')));
  if (released.length === 0) {
    lines.push(
      `No release has been cut yet: every package is at its first version (${[...new Set(packages.map((p) => p.version))].join(', ')}).`,
      '',
    );
  }
  for (const { name, dir } of released) {
    const changelog = (await readFile(join(dir, 'CHANGELOG.md'), 'utf8')).replace(/^# .*\n+/, '');
    lines.push(`### ${name}`, '', demote(changelog.trim(), 2), '');
  }
  await writeFile(outFile, `${lines.join('\n').trimEnd()}\n`);
  return outFile;
}
