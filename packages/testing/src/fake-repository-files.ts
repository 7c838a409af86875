/** The files of fake repositories at their commits, for the code-host fakes' raw-file routes. */
export interface FakeRepositoryFiles {
  /** Puts `content` at `path` of `repo` (its path on the host) at commit or branch `ref`. */
  add(repo: string, ref: string, path: string, content: string | Uint8Array): void;
  /** The bytes of `path` at `ref`, or undefined when the fake holds none. */
  find(repo: string, ref: string, path: string): Uint8Array | undefined;
}

/** An empty set of files. */
export function createFakeRepositoryFiles(): FakeRepositoryFiles {
  const files = new Map<string, Uint8Array>();
  const key = (repo: string, ref: string, path: string) => `${repo}\n${ref}\n${path}`;
  return {
    add(repo, ref, path, content) {
      files.set(
        key(repo, ref, path),
        typeof content === 'string' ? new TextEncoder().encode(content) : content,
      );
    },
    find: (repo, ref, path) => files.get(key(repo, ref, path)),
  };
}

/**
 * A code host's request quota for one hour, as GitHub and GitLab count it: each request spends
 * one, and none is left until the reset.
 */
export interface FakeQuota {
  limit: number;
  remaining: number;
  /** When the quota is whole again, in seconds since the epoch. */
  reset: number;
}

/** A quota of `limit` requests until an hour from now. */
export function fakeQuota(limit: number): FakeQuota {
  return { limit, remaining: limit, reset: Math.ceil(Date.now() / 1000) + 3600 };
}
