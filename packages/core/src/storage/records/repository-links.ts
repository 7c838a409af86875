// A repository's link to its code host, for feedback on pull requests.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/** The code hosts covgate gives feedback on: GitHub, GitLab, and Gitea (Forgejo alike). */
export type CodeHostKind = 'github' | 'gitlab' | 'gitea';

/** Every {@link CodeHostKind}, in the order people are shown them. */
export const CODE_HOST_KINDS: readonly CodeHostKind[] = ['github', 'gitlab', 'gitea'];

/**
 * A repository of an organisation linked to a repository on a code host: covgate sets commit
 * statuses and a merge/pull-request comment there after each run. The store keeps the
 * credential as given (ciphertext made by the caller); it never encrypts, decrypts or shows it.
 */
export interface RepositoryLink {
  orgId: string;
  /** The covgate repository name (as runs are recorded under). */
  repo: string;
  /** The code host the repository lives on. */
  host: CodeHostKind;
  /**
   * The repository's path on its code host: `owner/name` on GitHub and Gitea, the project's
   * full path on GitLab (nested groups: `group/subgroup/project`).
   */
  repository: string;
  /**
   * The code host's REST API base: `https://api.github.com`, a GitHub Enterprise
   * `.../api/v3`, `https://gitlab.com/api/v4`, a Gitea or Forgejo `.../api/v1`.
   */
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

/** Links of repositories to code-host repositories (one per repository). */
export interface RepositoryLinkStore {
  /** Saves the repository's link, replacing the one it had. */
  putRepositoryLink(link: RepositoryLink): Promise<void>;
  findRepositoryLink(orgId: string, repo: string): Promise<RepositoryLink | null>;
  /** Removes the repository's link; false when it had none. Its deliveries stay. */
  deleteRepositoryLink(orgId: string, repo: string): Promise<boolean>;
}
