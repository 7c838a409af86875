// Where the reference's "Defined in" links point: the repository named in the root
// package.json, never a git remote (a fork may name its remote otherwise, an unpacked archive
// turned into a repository has none, and TypeDoc warns then, which fails the build).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The web address of a package.json `repository` (`git+https://github.com/o/r.git` or
 * `{ "url": ... }`): `https://github.com/o/r`.
 */
export function repositoryWebUrl(repository) {
  const url = typeof repository === 'string' ? repository : repository?.url;
  const match = /^(?:git\+)?(https:\/\/[^/\s]+\/[^/\s]+\/[^/\s]+?)(?:\.git)?\/?$/.exec(url ?? '');
  if (!match) {
    throw new Error(
      `package.json "repository" must be an https URL like git+https://github.com/owner/name.git (got ${JSON.stringify(url ?? null)})`,
    );
  }
  return match[1];
}

/**
 * TypeDoc's `sourceLinkTemplate` for the repository named in `repoDir`'s package.json: a file
 * at the revision TypeDoc reads from git (`{gitRevision}`), line anchor as GitHub writes it.
 */
export function sourceLinkTemplate(repoDir) {
  const manifest = JSON.parse(readFileSync(join(repoDir, 'package.json'), 'utf8'));
  return `${repositoryWebUrl(manifest.repository)}/blob/{gitRevision}/{path}#L{line}`;
}
