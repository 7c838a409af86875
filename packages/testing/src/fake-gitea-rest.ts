import type { FakeAnswer, FakeComment, FakeStatus } from './fake-github-rest.js';
import { createFakeRepositoryFiles, type FakeRepositoryFiles } from './fake-repository-files.js';
import { type FakeReply, type FakeRequest, startFakeRestServer } from './fake-rest-server.js';

/**
 * A local stand-in for Gitea's and Forgejo's REST API (`{apiUrl}` is
 * `http://127.0.0.1:<port>/api/v1`), answering as they document, errors as
 * `{"message": ..., "url": ...}`:
 * - authentication by `Authorization: token ...` (or `Bearer`); a token it does not know:
 *   `401`; a repository the token may not see: `404 {"message":"not found"}`;
 * - `POST /repos/{owner}/{repo}/statuses/{sha}` (`state`: `pending`, `success`, `error`,
 *   `failure`, `warning`; `context`, `description`, `target_url`): `201` with the status; `422`
 *   for another state;
 * - `GET /repos/{owner}/{repo}/issues/{index}/comments`: every comment, oldest first, with
 *   `x-total-count` (the endpoint does not page);
 * - `POST /repos/{owner}/{repo}/issues/{index}/comments` (`body`): `201` with the comment;
 * - `PATCH` and `DELETE /repos/{owner}/{repo}/issues/comments/{id}`: `200` with the comment,
 *   `204`; `404` for another repository's.
 * - `GET /repos/{owner}/{repo}/raw/{filepath}?ref=`: `200` with the file's bytes
 *   (`text/plain; charset=utf-8`); `404 {"errors":["object does not exist [id: , rel_path:
 *   ...]"],"message":"The target couldn't be found.","url":...}` for a file the repository
 *   has not at `ref`. Gitea sends no rate-limit headers.
 *
 * Tests make it misbehave with the same levers as the GitHub fake.
 */
export interface FakeGiteaRest {
  /** The API base a repository link names (`api_url`). */
  apiUrl: string;
  /** Every status received, in order (`repo` is `owner/name`). */
  statuses: FakeStatus[];
  /** Every comment, by id. */
  comments: Map<number, FakeComment>;
  /** `METHOD path` of each request answered (failed ones included), in order. */
  requests: string[];
  /** Lets `token` write to `repos` (`owner/name`). */
  allowToken(token: string, repos: readonly string[]): void;
  /** Adds someone else's comment to a pull request; returns its id. */
  addComment(repo: string, issue: number, body: string): number;
  /** The comments of one pull request, oldest first. */
  commentsOf(repo: string, issue: number): FakeComment[];
  /** The repositories' files at their commits, which the raw-file route answers. */
  files: FakeRepositoryFiles;
  failNext(answer: FakeAnswer, count?: number): void;
  failFor(answer: FakeAnswer, ms: number): void;
  setDown(mode: 'refuse' | 'hang' | null): Promise<void>;
  close(): Promise<void>;
}

const PREFIX = '/api/v1';
const STATES = new Set(['pending', 'success', 'error', 'failure', 'warning']);

/** Starts the fake on a free port of 127.0.0.1. */
export async function startFakeGiteaRest(): Promise<FakeGiteaRest> {
  const statuses: FakeStatus[] = [];
  const comments = new Map<number, FakeComment>();
  const tokens = new Map<string, Set<string>>();
  let nextId = 300;
  const files = createFakeRepositoryFiles();

  const server = await startFakeRestServer(handle);
  const apiUrl = `${server.origin}${PREFIX}`;
  const error = (status: number, message: string): FakeReply => ({
    status,
    body: { message, url: `${server.origin}/api/swagger` },
  });

  function handle(request: FakeRequest): FakeReply {
    const token = /^(?:token|Bearer) (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const allowed = token === undefined ? undefined : tokens.get(token);
    if (!allowed) return error(401, 'user does not exist [uid: 0, name: ]');
    const path = request.url.pathname.startsWith(PREFIX)
      ? request.url.pathname.slice(PREFIX.length)
      : '';
    const raw = /^\/repos\/([^/]+\/[^/]+)\/raw\/(.+)$/.exec(path);
    if (raw?.[1] && raw[2] && request.method === 'GET') {
      if (!allowed.has(raw[1])) return error(404, 'not found');
      const filePath = raw[2].split('/').map(decodeURIComponent).join('/');
      const ref = request.url.searchParams.get('ref');
      const bytes = ref === null ? undefined : files.find(raw[1], ref, filePath);
      if (bytes === undefined) {
        return {
          status: 404,
          body: {
            errors: [`object does not exist [id: , rel_path: ${filePath}]`],
            message: "The target couldn't be found.",
            url: `${server.origin}/api/swagger`,
          },
        };
      }
      return { status: 200, raw: bytes, headers: { 'content-type': 'text/plain; charset=utf-8' } };
    }
    const route =
      /^\/repos\/([^/]+\/[^/]+)\/(statuses\/([^/]+)|issues\/(\d+)\/comments|issues\/comments\/(\d+))$/.exec(
        path,
      );
    if (!route?.[1] || !allowed.has(route[1])) return error(404, 'not found');
    const repo = route[1];
    const { method, json } = request;
    if (route[3] !== undefined && method === 'POST') return setStatus(repo, route[3], json);
    if (route[4] !== undefined && method === 'GET') {
      const all = commentsOf(repo, Number(route[4]));
      return {
        status: 200,
        body: all.map(commentJson),
        headers: { 'x-total-count': String(all.length) },
      };
    }
    if (route[4] !== undefined && method === 'POST') {
      const id = addComment(repo, Number(route[4]), String(json.body ?? ''));
      return { status: 201, body: commentJson(comments.get(id) as FakeComment) };
    }
    const comment = route[5] === undefined ? undefined : comments.get(Number(route[5]));
    if (!comment || comment.repo !== repo) return error(404, 'not found');
    if (method === 'PATCH') {
      comment.body = String(json.body ?? '');
      comment.edits += 1;
      return { status: 200, body: commentJson(comment) };
    }
    if (method === 'DELETE') {
      comments.delete(comment.id);
      return { status: 204 };
    }
    return error(404, 'not found');
  }

  function setStatus(repo: string, sha: string, json: Record<string, unknown>): FakeReply {
    if (!STATES.has(String(json.state))) return error(422, 'State: invalid commit status state');
    const status: FakeStatus = {
      repo,
      sha,
      state: String(json.state),
      context: typeof json.context === 'string' ? json.context : 'default',
      description: typeof json.description === 'string' ? json.description : null,
      target_url: typeof json.target_url === 'string' ? json.target_url : null,
    };
    statuses.push(status);
    return { status: 201, body: { id: nextId++, status: status.state, ...status } };
  }

  function commentJson(comment: FakeComment) {
    return {
      id: comment.id,
      body: comment.body,
      html_url: `${server.origin}/${comment.repo}/pulls/${comment.issue}#issuecomment-${comment.id}`,
      user: { login: 'covgate-bot' },
    };
  }

  function addComment(repo: string, issue: number, body: string): number {
    const id = nextId++;
    comments.set(id, { id, repo, issue, body, edits: 0 });
    return id;
  }

  function commentsOf(repo: string, issue: number): FakeComment[] {
    return [...comments.values()].filter((each) => each.repo === repo && each.issue === issue);
  }

  return {
    apiUrl,
    statuses,
    comments,
    requests: server.requests,
    allowToken(token, repos) {
      tokens.set(token, new Set(repos));
    },
    addComment,
    commentsOf,
    files,
    failNext: server.failNext,
    failFor: server.failFor,
    setDown: server.setDown,
    close: server.close,
  };
}
