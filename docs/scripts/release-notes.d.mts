/**
 * Writes the release notes page of the repository at `repoDir` (this one by default) to
 * `outFile` (its docs/release-notes.md by default); resolves with the path written.
 */
export function writeReleaseNotes(options?: {
  repoDir?: string;
  outFile?: string;
}): Promise<string>;
