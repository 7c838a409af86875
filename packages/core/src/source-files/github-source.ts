import { encodedFilePath, type SourceHost } from './source-host.js';

/**
 * GitHub's contents API with the raw media type (`GET /repos/{owner}/{repo}/contents/{path}
 * ?ref=`), which answers the file's bytes for files up to 100 MB, where the JSON form stops
 * at 1 MB.
 */
export const githubSource: SourceHost = {
  kind: 'github',
  name: 'GitHub',
  rawFileRequest(apiUrl, repository, commit, path, token) {
    return {
      url: `${apiUrl}/repos/${repository}/contents/${encodedFilePath(path)}?ref=${encodeURIComponent(commit)}`,
      headers: {
        accept: 'application/vnd.github.raw+json',
        authorization: `Bearer ${token}`,
        'x-github-api-version': '2022-11-28',
      },
    };
  },
};
