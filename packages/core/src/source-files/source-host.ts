import type { CodeHostKind } from '../storage/store.js';

/** A request for a file's raw text, as a code host's REST API documents it. */
export interface RawFileRequest {
  url: string;
  headers: Record<string, string>;
}

/**
 * A code host covgate reads a repository's files from, for the run page's source beside a
 * file's lines. One file per host implements it; `source-hosts.ts` lists them.
 */
export interface SourceHost {
  readonly kind: CodeHostKind;
  /** The host's name in messages (`GitHub`). */
  readonly name: string;
  /**
   * The request for the raw bytes of `path` at `commit` of `repository` (its path on the
   * host), below the link's API base `apiUrl` and authenticated with `token`.
   */
  rawFileRequest(
    apiUrl: string,
    repository: string,
    commit: string,
    path: string,
    token: string,
  ): RawFileRequest;
}

/** A repository path in a URL: each segment percent-encoded, the `/` between them kept. */
export function encodedFilePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
