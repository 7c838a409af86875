import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  createFakeRepositoryFiles,
  type FakeQuota,
  type FakeRepositoryFiles,
  fakeQuota,
} from './fake-repository-files.js';

/** A commit status the fake received and kept. */
export interface FakeStatus {
  /** `owner/name`. */
  repo: string;
  sha: string;
  state: string;
  context: string;
  description: string | null;
  target_url: string | null;
}

/** An issue comment the fake holds. */
export interface FakeComment {
  id: number;
  repo: string;
  issue: number;
  body: string;
  /** How many times it was edited (`PATCH`). */
  edits: number;
}

/** An answer the fake gives instead of handling a request (see {@link FakeGithubRest.failNext}). */
export interface FakeAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * A local stand-in for GitHub's REST API (Enterprise layout: `{apiUrl}` is
 * `http://127.0.0.1:<port>/api/v3`), answering as GitHub documents:
 * - `POST /repos/{owner}/{repo}/statuses/{sha}`: `201` with the status; `422 Validation
 *   Failed` for a state GitHub does not know or a description over 140 characters; `422 No
 *   commit found for SHA` for a SHA that is not 40 hex characters;
 * - `GET /repos/{owner}/{repo}/issues/{number}/comments?per_page&page`: the comments oldest
 *   first, 30 a page unless `per_page` (at most 100), with a `Link` header (`next`, `last`);
 * - `POST /repos/{owner}/{repo}/issues/{number}/comments`: `201` with the comment;
 * - `DELETE /repos/{owner}/{repo}/issues/comments/{id}`: `204`, `404` for another repository's;
 * - `PATCH /repos/{owner}/{repo}/issues/comments/{id}`: `200`, `404` for another repository's;
 * - `GET /repos/{owner}/{repo}/contents/{path}?ref=`: with `Accept:
 *   application/vnd.github.raw+json`, `200` with the file's bytes
 *   (`application/vnd.github.raw; charset=utf-8`), else the JSON form (`type`, `encoding:
 *   base64`, `content`...); `404 {"message":"Not Found","documentation_url":...,"status":"404"}`
 *   for a file the repository has not at `ref`; every answer with `x-ratelimit-limit`,
 *   `-remaining`, `-used`, `-reset` (epoch seconds) and `-resource: core`, and once the quota
 *   of {@link FakeGithubRest.setRateLimit} is spent, `403 API rate limit exceeded` with
 *   `x-ratelimit-remaining: 0`;
 * - a token it does not know: `401 Bad credentials`; a repository the token may not see:
 *   `404 Not Found`.
 *
 * Tests make it misbehave: {@link FakeGithubRest.failNext} answers the next requests with a
 * given status and headers (a `403` secondary rate limit with `retry-after`, a `502`...), and
 * {@link FakeGithubRest.setDown} refuses connections or accepts them and never answers.
 */
export interface FakeGithubRest {
  /** The API base a repository link names (`api_url`). */
  apiUrl: string;
  /** Every status received, in order (a status set twice is there twice). */
  statuses: FakeStatus[];
  /** Every comment, by id. */
  comments: Map<number, FakeComment>;
  /** `METHOD path` of each request answered (failed ones included), in order. */
  requests: string[];
  /** Lets `token` write to `repos` (`owner/name`). */
  allowToken(token: string, repos: readonly string[]): void;
  /** Adds someone else's comment to an issue (to fill pages); returns its id. */
  addComment(repo: string, issue: number, body: string): number;
  /** The comments of one issue, oldest first. */
  commentsOf(repo: string, issue: number): FakeComment[];
  /** The repositories' files at their commits, which the contents route answers. */
  files: FakeRepositoryFiles;
  /** Contents reads allowed until an hour from now (default 5000, GitHub's hourly quota). */
  setRateLimit(limit: number): void;
  /** Answers the next `count` requests (default 1) with `answer` instead of handling them. */
  failNext(answer: FakeAnswer, count?: number): void;
  /**
   * Answers every request with `answer` for the next `ms` milliseconds (a rate limit that
   * lasts), before the answers of {@link FakeGithubRest.failNext}.
   */
  failFor(answer: FakeAnswer, ms: number): void;
  /**
   * `refuse`: closes the port (connection refused); `hang`: accepts requests and never answers
   * them; `null`: back to normal, on the same port.
   */
  setDown(mode: 'refuse' | 'hang' | null): Promise<void>;
  close(): Promise<void>;
}

const PREFIX = '/api/v3';
const NOT_FOUND = { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' };
const STATES = new Set(['error', 'failure', 'pending', 'success']);

/** Starts the fake on a free port of 127.0.0.1. */
export async function startFakeGithubRest(): Promise<FakeGithubRest> {
  const statuses: FakeStatus[] = [];
  const comments = new Map<number, FakeComment>();
  const requests: string[] = [];
  const tokens = new Map<string, Set<string>>();
  const failures: FakeAnswer[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  let nextId = 1000;
  let mode: 'refuse' | 'hang' | null = null;
  let lasting: { answer: FakeAnswer; until: number } | null = null;
  const files = createFakeRepositoryFiles();
  let quota: FakeQuota = fakeQuota(5000);

  const server = createServer((request, response) => {
    handle(request, response).catch(() => send(response, 500, { message: 'fake failed' }));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const body = await readBody(request);
    if (mode === 'hang') {
      hanging.add(response);
      return;
    }
    requests.push(`${request.method} ${url.pathname}`);
    const failure =
      lasting !== null && Date.now() < lasting.until ? lasting.answer : failures.shift();
    if (failure) {
      send(response, failure.status, failure.body ?? { message: 'fake failure' }, failure.headers);
      return;
    }
    const token = /^(?:token|Bearer) (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const allowed = token === undefined ? undefined : tokens.get(token);
    if (!allowed) {
      send(response, 401, {
        message: 'Bad credentials',
        documentation_url: 'https://docs.github.com/rest',
      });
      return;
    }
    const path = url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length) : '';
    const contents = /^\/repos\/([^/]+\/[^/]+)\/contents\/(.+)$/.exec(path);
    if (contents?.[1] && contents[2] && request.method === 'GET') {
      if (!allowed.has(contents[1])) {
        send(response, 404, NOT_FOUND);
        return;
      }
      const filePath = contents[2].split('/').map(decodeURIComponent).join('/');
      sendContents(response, request, contents[1], filePath, url.searchParams.get('ref'));
      return;
    }
    const route =
      /^\/repos\/([^/]+\/[^/]+)\/(statuses\/([^/]+)|issues\/(\d+)\/comments|issues\/comments\/(\d+))$/.exec(
        path,
      );
    if (!route?.[1] || !allowed.has(route[1])) {
      send(response, 404, NOT_FOUND);
      return;
    }
    const repo = route[1];
    const json = parse(body);
    if (route[3] !== undefined && request.method === 'POST') {
      setStatus(response, repo, route[3], json);
    } else if (route[4] !== undefined && request.method === 'GET') {
      listComments(response, url, repo, Number(route[4]));
    } else if (route[4] !== undefined && request.method === 'POST') {
      const id = addComment(repo, Number(route[4]), String(json.body ?? ''));
      send(response, 201, commentJson(comments.get(id) as FakeComment));
    } else if (route[5] !== undefined && request.method === 'DELETE') {
      const comment = comments.get(Number(route[5]));
      if (!comment || comment.repo !== repo) {
        send(response, 404, NOT_FOUND);
        return;
      }
      comments.delete(comment.id);
      response.writeHead(204).end();
    } else if (route[5] !== undefined && request.method === 'PATCH') {
      const comment = comments.get(Number(route[5]));
      if (!comment || comment.repo !== repo) {
        send(response, 404, NOT_FOUND);
        return;
      }
      comment.body = String(json.body ?? '');
      comment.edits += 1;
      send(response, 200, commentJson(comment));
    } else {
      send(response, 404, NOT_FOUND);
    }
  }

  function sendContents(
    response: ServerResponse,
    request: IncomingMessage,
    repo: string,
    filePath: string,
    ref: string | null,
  ): void {
    const limits = () => ({
      'x-ratelimit-limit': String(quota.limit),
      'x-ratelimit-remaining': String(quota.remaining),
      'x-ratelimit-used': String(quota.limit - quota.remaining),
      'x-ratelimit-reset': String(quota.reset),
      'x-ratelimit-resource': 'core',
    });
    if (quota.remaining === 0) {
      send(
        response,
        403,
        {
          message: 'API rate limit exceeded for user ID 1.',
          documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
          status: '403',
        },
        limits(),
      );
      return;
    }
    quota.remaining -= 1;
    const bytes = ref === null ? undefined : files.find(repo, ref, filePath);
    if (bytes === undefined) {
      send(
        response,
        404,
        {
          message: 'Not Found',
          documentation_url: 'https://docs.github.com/rest/repos/contents#get-repository-content',
          status: '404',
        },
        limits(),
      );
      return;
    }
    if (/application\/vnd\.github\.raw/.test(request.headers.accept ?? '')) {
      response
        .writeHead(200, {
          'content-type': 'application/vnd.github.raw; charset=utf-8',
          ...limits(),
        })
        .end(bytes);
      return;
    }
    send(
      response,
      200,
      {
        type: 'file',
        encoding: 'base64',
        size: bytes.byteLength,
        name: filePath.split('/').at(-1),
        path: filePath,
        content: Buffer.from(bytes).toString('base64'),
      },
      limits(),
    );
  }

  function setStatus(
    response: ServerResponse,
    repo: string,
    sha: string,
    json: Record<string, unknown>,
  ): void {
    if (!/^[0-9a-f]{40}$/.test(sha)) {
      send(response, 422, { message: `No commit found for SHA: ${sha}` });
      return;
    }
    const description = typeof json.description === 'string' ? json.description : null;
    if (!STATES.has(String(json.state)) || (description?.length ?? 0) > 140) {
      send(response, 422, { message: 'Validation Failed', errors: [{ resource: 'Status' }] });
      return;
    }
    const status: FakeStatus = {
      repo,
      sha,
      state: String(json.state),
      context: typeof json.context === 'string' ? json.context : 'default',
      description,
      target_url: typeof json.target_url === 'string' ? json.target_url : null,
    };
    statuses.push(status);
    send(response, 201, {
      id: nextId++,
      url: `${apiUrl}/repos/${repo}/statuses/${sha}`,
      ...status,
    });
  }

  function listComments(response: ServerResponse, url: URL, repo: string, issue: number): void {
    const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30)));
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
    const all = commentsOf(repo, issue);
    const last = Math.max(1, Math.ceil(all.length / perPage));
    const pageUrl = (n: number) => {
      const next = new URL(`${apiUrl}/repos/${repo}/issues/${issue}/comments`);
      next.searchParams.set('per_page', String(perPage));
      next.searchParams.set('page', String(n));
      return next.toString();
    };
    const links =
      page < last
        ? { link: `<${pageUrl(page + 1)}>; rel="next", <${pageUrl(last)}>; rel="last"` }
        : undefined;
    send(response, 200, all.slice((page - 1) * perPage, page * perPage).map(commentJson), links);
  }

  function commentJson(comment: FakeComment) {
    return {
      id: comment.id,
      body: comment.body,
      html_url: `https://github.example/${comment.repo}/pull/${comment.issue}#issuecomment-${comment.id}`,
      user: { login: 'covgate-bot', type: 'Bot' },
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

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const shut = () =>
    new Promise<void>((resolve) => {
      for (const response of hanging) response.destroy();
      hanging.clear();
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });

  await listen(0);
  const { port } = server.address() as AddressInfo;
  const apiUrl = `http://127.0.0.1:${port}${PREFIX}`;

  return {
    apiUrl,
    statuses,
    comments,
    requests,
    allowToken(token, repos) {
      tokens.set(token, new Set(repos));
    },
    addComment,
    commentsOf,
    files,
    setRateLimit(limit) {
      quota = fakeQuota(limit);
    },
    failNext(answer, count = 1) {
      for (let index = 0; index < count; index += 1) failures.push(answer);
    },
    failFor(answer, ms) {
      lasting = { answer, until: Date.now() + ms };
    },
    async setDown(next) {
      const wasRefusing = mode === 'refuse';
      mode = next;
      if (next === 'refuse' && !wasRefusing) await shut();
      if (next !== 'refuse' && wasRefusing) await listen(port);
      if (next === null) {
        for (const response of hanging) response.destroy();
        hanging.clear();
      }
    },
    close: async () => {
      if (mode !== 'refuse') await shut();
    },
  };
}

function send(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent || response.destroyed) return;
  response
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
    .end(JSON.stringify(body));
}

function parse(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
