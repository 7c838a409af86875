/**
 * Links to a repository's code host from its `web_url` (`https://github.com/acme/api`).
 * GitLab names its pages under `/-/` (`/-/commit/{sha}`, `/-/merge_requests/{n}`); every other
 * host is taken to follow GitHub's paths (`/commit/{sha}`, `/pull/{n}`), as Gitea and
 * Forgejo do. A host is GitLab when its name has a label containing `gitlab`
 * (`gitlab.com`, `gitlab.acme.dev`, `acme-gitlab.internal`): a self-hosted GitLab under
 * another name links with GitHub's paths (see docs/decisions.md).
 */

/** Whether a repository URL is on a GitLab host. */
export function isGitlabUrl(webUrl: string): boolean {
  try {
    return new URL(webUrl).hostname.toLowerCase().includes('gitlab');
  } catch {
    return false;
  }
}

function base(webUrl: string): string | null {
  try {
    const url = new URL(webUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  } catch {
    return null;
  }
  return webUrl.replace(/\/+$/, '');
}

/** The commit's page on the code host; null without a usable `web_url`. */
export function commitUrl(webUrl: string | null, sha: string): string | null {
  const root = webUrl === null ? null : base(webUrl);
  if (root === null || webUrl === null) return null;
  const commit = encodeURIComponent(sha);
  return isGitlabUrl(webUrl) ? `${root}/-/commit/${commit}` : `${root}/commit/${commit}`;
}

/** The pull (merge) request's page on the code host; null without a usable `web_url`. */
export function pullRequestUrl(webUrl: string | null, number: number): string | null {
  const root = webUrl === null ? null : base(webUrl);
  if (root === null || webUrl === null) return null;
  return isGitlabUrl(webUrl) ? `${root}/-/merge_requests/${number}` : `${root}/pull/${number}`;
}

/** How a pull request is named on its host: `!12` on GitLab, `#12` elsewhere. */
export function pullRequestLabel(webUrl: string | null, number: number): string {
  return webUrl !== null && isGitlabUrl(webUrl) ? `!${number}` : `#${number}`;
}
