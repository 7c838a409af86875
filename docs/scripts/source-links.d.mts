/** The web address of a package.json `repository` (`git+https://github.com/o/r.git` or `{ url }`). */
export function repositoryWebUrl(repository: string | { url?: string } | undefined): string;

/** TypeDoc's `sourceLinkTemplate` for the repository named in `repoDir`'s package.json. */
export function sourceLinkTemplate(repoDir: string): string;
