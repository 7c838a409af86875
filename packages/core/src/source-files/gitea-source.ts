import { encodedFilePath, type SourceHost } from './source-host.js';

/** Gitea's and Forgejo's `GET /repos/{owner}/{repo}/raw/{filepath}?ref=`. */
export const giteaSource: SourceHost = {
  kind: 'gitea',
  name: 'Gitea',
  rawFileRequest(apiUrl, repository, commit, path, token) {
    return {
      url: `${apiUrl}/repos/${repository}/raw/${encodedFilePath(path)}?ref=${encodeURIComponent(commit)}`,
      headers: { authorization: `token ${token}` },
    };
  },
};
