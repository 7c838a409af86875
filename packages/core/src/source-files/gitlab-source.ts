import type { SourceHost } from './source-host.js';

/**
 * GitLab's repository files API (`GET /projects/:id/repository/files/:file_path/raw?ref=`):
 * the project and the file path each URL-encoded whole, `/` included, as GitLab requires.
 */
export const gitlabSource: SourceHost = {
  kind: 'gitlab',
  name: 'GitLab',
  rawFileRequest(apiUrl, repository, commit, path, token) {
    return {
      url: `${apiUrl}/projects/${encodeURIComponent(repository)}/repository/files/${encodeURIComponent(path)}/raw?ref=${encodeURIComponent(commit)}`,
      headers: { 'private-token': token },
    };
  },
};
