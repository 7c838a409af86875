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
  updatedAt: Date;
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
