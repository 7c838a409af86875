/** What a run is about, as detected from CI or git; every field may be overridden by a flag. */
export interface RunContext {
  repo?: string;
  branch?: string;
  /** The head commit of the change: on a pull request never the CI's merge commit. */
  commit?: string;
  baseBranch?: string;
  pullRequest?: string;
  /**
   * The CI service: `gitea` or `forgejo` for their Actions, else the one env-ci recognised
   * (`github`, `gitlab`, ...); undefined outside CI.
   */
  service?: string;
  /** The tag of a tag build; such a build has no branch unless the CI names one. */
  tag?: string;
  /** Why the commit could not be told (it is then left out rather than guessed). */
  commitUnknown?: string;
  /**
   * The repository's URL on its code host, as the CI names it (GitHub, Gitea and Forgejo
   * Actions: `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY`; GitLab CI: `$CI_PROJECT_URL`).
   */
  repoUrl?: string;
}

/** What a CI mapping tells, before the repository name is worked out. */
export type CiContext = Omit<RunContext, 'repo' | 'service'> & { slug?: string };

/** Runs git and returns its trimmed output, or undefined when git fails. */
export type GitRunner = (args: string[], cwd: string) => string | undefined;

/** Reads a file as UTF-8 text (the GitHub event file); throws when it cannot. */
export type TextReader = (path: string) => string;
