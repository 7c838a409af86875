import type { Carryforward } from '../../executions/carryforward.js';
import type { ExpectedParts } from '../../executions/parts.js';

// Per-repository settings and counters.
// The records and their store port; `../store.ts` joins the ports into `Store`.

/** Settings of one repository of an organisation. */
export interface RepositorySettings {
  orgId: string;
  repo: string;
  /** The patch target of runs that send none (percent, 0..100), or null for covgate's default. */
  patchTarget: number | null;
  /** The repository's http(s) URL on its code host (`https://github.com/acme/api`), or null. */
  webUrl: string | null;
  /**
   * Who set `webUrl`: `api` (a `PATCH`, which a run's `repo_url` never replaces, even when it
   * set null) or `ingest` (a run's `repo_url`, taken while none was set); null when never set.
   */
  webUrlSource: WebUrlSource | null;
  /** The parts a commit's report waits for (names or a count), or null when unset. */
  expectedParts: ExpectedParts | null;
  /** Minutes a report waits for its parts before it is judged incomplete; null: covgate's 60. */
  partsDeadlineMinutes: number | null;
  /** Which expected parts missing from a judged report are carried forward; null: none. */
  carryforwardParts: Carryforward | null;
  /**
   * The CI identities whose OIDC ID tokens may post the repository's runs without an API
   * token; null (or empty) when none may.
   */
  ciTrust: CiTrust[] | null;
  updatedAt: Date;
}

/** The CI systems whose OIDC ID tokens covgate accepts instead of an API token. */
export const CI_PROVIDERS = ['github', 'gitlab'] as const;

/** A CI system whose ID tokens covgate can verify. */
export type CiProvider = (typeof CI_PROVIDERS)[number];

/**
 * One CI identity a repository's settings trust to post its runs without an API token: the
 * CI system and the repository (GitHub `owner/name`, GitLab `group/subgroup/project`), and
 * optionally the one git ref and the one deployment environment the job must run for.
 */
export interface CiTrust {
  /** The CI system whose tokens are trusted. */
  provider: CiProvider;
  /** GitHub's `repository` claim or GitLab's `project_path`, exactly. */
  repository: string;
  /** A full ref (`refs/heads/main`); null: any ref. */
  ref: string | null;
  /** A deployment environment (`production`); null: any, or none. */
  environment: string | null;
}

/** Who set a repository's web URL (see {@link RepositorySettings.webUrlSource}). */
export type WebUrlSource = 'api' | 'ingest';

/** Per-repository settings. */
export interface RepositorySettingsStore {
  /** The repository's settings, or null when none were ever saved. */
  findRepositorySettings(orgId: string, repo: string): Promise<RepositorySettings | null>;
  /** Saves the repository's settings, replacing earlier ones. */
  saveRepositorySettings(settings: RepositorySettings): Promise<void>;
  /**
   * Sets the repository's `webUrl` to `webUrl` with source `ingest` when its `webUrlSource` is
   * null (creating the settings, with nothing else set, when there are none); changes nothing
   * otherwise. Returns whether it set it. Of concurrent calls, the first write wins.
   */
  claimRepositoryWebUrl(orgId: string, repo: string, webUrl: string, at: Date): Promise<boolean>;
}
