// A repository's link to its code host, for feedback on pull requests.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/**
 * A repository of an organisation linked to a GitHub repository: covgate sets commit statuses
 * and a pull-request comment there after each run. The store keeps the credential as given
 * (ciphertext made by the caller); it never encrypts, decrypts or shows it.
 */
export interface RepositoryLink {
  orgId: string;
  /** The covgate repository name (as runs are recorded under). */
  repo: string;
  /** The GitHub repository, `owner/name`. */
  githubRepo: string;
  /** The GitHub REST API base, `https://api.github.com` or a GitHub Enterprise `.../api/v3`. */
  apiUrl: string;
  /** The encrypted credential (ciphertext text); never returned by the API. */
  credential: string;
  /** A short, safe hint of the credential to show (its last 4 characters, say). */
  credentialHint: string;
  /** The user who linked it. */
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The default {@link RepositoryLink.apiUrl}: github.com's REST API. */
export const GITHUB_API_URL = 'https://api.github.com';

/** Links of repositories to GitHub repositories (one per repository). */
export interface RepositoryLinkStore {
  /** Saves the repository's link, replacing the one it had. */
  putRepositoryLink(link: RepositoryLink): Promise<void>;
  findRepositoryLink(orgId: string, repo: string): Promise<RepositoryLink | null>;
  /** Removes the repository's link; false when it had none. Its deliveries stay. */
  deleteRepositoryLink(orgId: string, repo: string): Promise<boolean>;
}
