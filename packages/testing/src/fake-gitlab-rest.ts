import type { FakeAnswer } from './fake-github-rest.js';
import {
  createFakeRepositoryFiles,
  type FakeQuota,
  type FakeRepositoryFiles,
  fakeQuota,
} from './fake-repository-files.js';
import { type FakeReply, type FakeRequest, startFakeRestServer } from './fake-rest-server.js';

/** A commit status the fake GitLab received and kept. */
export interface FakeGitlabStatus {
  /** The project's full path (`group/subgroup/project`). */
  project: string;
  sha: string;
  /** GitLab's state: `pending`, `running`, `success`, `failed`, `canceled`, `skipped`. */
  state: string;
  /** The status's `name` (GitLab also takes it as `context`). */
  name: string;
  description: string | null;
  target_url: string | null;
}

/** A merge-request note the fake GitLab holds. */
export interface FakeGitlabNote {
  id: number;
  project: string;
  /** The merge request's `iid`. */
  mergeRequest: number;
  body: string;
  /** How many times it was edited (`PUT`). */
  edits: number;
}

/**
 * A local stand-in for GitLab's REST API v4 (`{apiUrl}` is `http://127.0.0.1:<port>/api/v4`),
 * answering as GitLab documents:
 * - authentication by `PRIVATE-TOKEN` (or `Authorization: Bearer`); a token it does not know:
 *   `401 {"message":"401 Unauthorized"}`; a project the token may not see (or none of that
 *   path): `404 {"message":"404 Project Not Found"}`. Projects are named by their URL-encoded
 *   full path (`group%2Fsub%2Fproject`);
 * - `POST /projects/:id/statuses/:sha` (`state`, `name` or `context`, `description`,
 *   `target_url`): `201` with the status; `400 {"error":"state does not have a valid value"}`;
 *   `400 {"message":{"description":["is too long (maximum is 255 characters)"]}}`;
 *   `404 {"message":"404 Commit Not Found"}` for a SHA that is not 40 hex characters. A
 *   pending or running status of that name is updated, and refuses its own state again (`400
 *   {"message":"Cannot transition status via :run from :running ..."}`); a finished one
 *   (`success`, `failed`...) is a new status each time;
 * - `GET /projects/:id/merge_requests/:iid/notes?sort&order_by&per_page&page`: the notes
 *   (oldest first for `sort=asc`), 20 a page unless `per_page` (at most 100), with
 *   `x-page`, `x-per-page`, `x-total`, `x-total-pages`, `x-next-page` (empty on the last page),
 *   `x-prev-page` and a `Link` header (`next`, `first`, `last`);
 * - `POST /projects/:id/merge_requests/:iid/notes` (`body`): `201` with the note; an empty
 *   body: `400 {"message":"400 Bad request - Note {:note=>[\"can't be blank\"]}"}`;
 * - `PUT` and `DELETE /projects/:id/merge_requests/:iid/notes/:note_id`: `200` with the note,
 *   `204`; `404 {"message":"404 Not found"}` for another merge request's note.
 * - `GET /projects/:id/repository/files/:file_path/raw?ref=` (the path URL-encoded whole): `200`
 *   with the file's bytes (`text/plain; charset=utf-8`) and `RateLimit-Limit`,
 *   `RateLimit-Remaining`, `RateLimit-Reset` (epoch seconds) and `RateLimit-Observed`;
 *   `404 {"message":"404 File Not Found"}` for a file the project has not at `ref`; once the
 *   quota of {@link FakeGitlabRest.setRateLimit} is spent, `429` with `Retry-After`, the same
 *   headers and the plain text `Retry later`.
 *
 * Tests make it misbehave with {@link FakeGitlabRest.failNext} (a `429` with `Retry-After` and
 * `RateLimit-Reset`, a `502`...), {@link FakeGitlabRest.failFor} and
 * {@link FakeGitlabRest.setDown}, as the GitHub fake's.
 */
export interface FakeGitlabRest {
  /** The API base a repository link names (`api_url`). */
  apiUrl: string;
  /** Every status received, in order. */
  statuses: FakeGitlabStatus[];
  /** Every note, by id. */
  notes: Map<number, FakeGitlabNote>;
  /** `METHOD path` of each request answered (failed ones included), in order; paths encoded. */
  requests: string[];
  /** Lets `token` write to `projects` (full paths). */
  allowToken(token: string, projects: readonly string[]): void;
  /** Adds someone else's note to a merge request (to fill pages); returns its id. */
  addNote(project: string, mergeRequest: number, body: string): number;
  /** The notes of one merge request, oldest first. */
  notesOf(project: string, mergeRequest: number): FakeGitlabNote[];
  /** The projects' files at their commits, which the raw-file route answers. */
  files: FakeRepositoryFiles;
  /** Raw-file reads allowed until an hour from now (default 2000, gitlab.com's per minute). */
  setRateLimit(limit: number): void;
  failNext(answer: FakeAnswer, count?: number): void;
  failFor(answer: FakeAnswer, ms: number): void;
  setDown(mode: 'refuse' | 'hang' | null): Promise<void>;
  close(): Promise<void>;
}

const PREFIX = '/api/v4';
const STATES = new Set(['pending', 'running', 'success', 'failed', 'canceled', 'skipped']);
const EVENTS: Record<string, string> = { pending: 'enqueue', running: 'run' };
const PROJECT_NOT_FOUND: FakeReply = { status: 404, body: { message: '404 Project Not Found' } };
const NOT_FOUND: FakeReply = { status: 404, body: { message: '404 Not found' } };

/** Starts the fake on a free port of 127.0.0.1. */
export async function startFakeGitlabRest(): Promise<FakeGitlabRest> {
  const statuses: FakeGitlabStatus[] = [];
  const notes = new Map<number, FakeGitlabNote>();
  const tokens = new Map<string, Set<string>>();
  let nextId = 500;
  const files = createFakeRepositoryFiles();
  let quota: FakeQuota = fakeQuota(2000);

  const server = await startFakeRestServer(handle);
  const apiUrl = `${server.origin}${PREFIX}`;

  function handle(request: FakeRequest): FakeReply {
    const headers = request.headers;
    const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
    const token = (headers['private-token'] as string | undefined) ?? bearer;
    const allowed = token === undefined ? undefined : tokens.get(token);
    if (!allowed) return { status: 401, body: { message: '401 Unauthorized' } };
    const path = request.url.pathname.startsWith(PREFIX)
      ? request.url.pathname.slice(PREFIX.length)
      : '';
    const raw = /^\/projects\/([^/]+)\/repository\/files\/([^/]+)\/raw$/.exec(path);
    if (raw?.[1] && raw[2] && request.method === 'GET') {
      const project = decodeURIComponent(raw[1]);
      if (!allowed.has(project)) return PROJECT_NOT_FOUND;
      return rawFile(project, decodeURIComponent(raw[2]), request.url.searchParams.get('ref'));
    }
    const route =
      /^\/projects\/([^/]+)\/(?:statuses\/([^/]+)|merge_requests\/(\d+)\/notes(?:\/(\d+))?)$/.exec(
        path,
      );
    if (!route?.[1]) return NOT_FOUND;
    const project = decodeURIComponent(route[1]);
    if (!allowed.has(project)) return PROJECT_NOT_FOUND;
    const { method, json } = request;
    if (route[2] !== undefined) {
      return method === 'POST' ? setStatus(project, route[2], json) : NOT_FOUND;
    }
    const mergeRequest = Number(route[3]);
    if (route[4] === undefined) {
      if (method === 'GET') return listNotes(request.url, project, mergeRequest);
      if (method !== 'POST') return NOT_FOUND;
      const body = typeof json.body === 'string' ? json.body : '';
      if (body.trim() === '') {
        return {
          status: 400,
          body: { message: `400 Bad request - Note {:note=>["can't be blank"]}` },
        };
      }
      const id = addNote(project, mergeRequest, body);
      return { status: 201, body: noteJson(notes.get(id) as FakeGitlabNote) };
    }
    const note = notes.get(Number(route[4]));
    if (!note || note.project !== project || note.mergeRequest !== mergeRequest) return NOT_FOUND;
    if (method === 'PUT') {
      note.body = String(json.body ?? '');
      note.edits += 1;
      return { status: 200, body: noteJson(note) };
    }
    if (method === 'DELETE') {
      notes.delete(note.id);
      return { status: 204 };
    }
    return NOT_FOUND;
  }

  function rawFile(project: string, filePath: string, ref: string | null): FakeReply {
    const limits = () => ({
      'ratelimit-limit': String(quota.limit),
      'ratelimit-remaining': String(quota.remaining),
      'ratelimit-reset': String(quota.reset),
      'ratelimit-observed': String(quota.limit - quota.remaining),
    });
    if (quota.remaining === 0) {
      return {
        status: 429,
        raw: new TextEncoder().encode('Retry later\n'),
        headers: {
          'content-type': 'text/plain',
          'retry-after': String(Math.max(1, quota.reset - Math.floor(Date.now() / 1000))),
          ...limits(),
        },
      };
    }
    quota.remaining -= 1;
    const bytes = ref === null ? undefined : files.find(project, ref, filePath);
    if (bytes === undefined) {
      return { status: 404, body: { message: '404 File Not Found' }, headers: limits() };
    }
    return {
      status: 200,
      raw: bytes,
      headers: { 'content-type': 'text/plain; charset=utf-8', ...limits() },
    };
  }

  function setStatus(project: string, sha: string, json: Record<string, unknown>): FakeReply {
    if (!/^[0-9a-f]{40}$/.test(sha))
      return { status: 404, body: { message: '404 Commit Not Found' } };
    const state = String(json.state ?? '');
    if (!STATES.has(state)) {
      return { status: 400, body: { error: 'state does not have a valid value' } };
    }
    const description = typeof json.description === 'string' ? json.description : null;
    if ((description?.length ?? 0) > 255) {
      return {
        status: 400,
        body: { message: { description: ['is too long (maximum is 255 characters)'] } },
      };
    }
    const name =
      typeof json.name === 'string'
        ? json.name
        : typeof json.context === 'string'
          ? json.context
          : 'default';
    const open = statuses.findLast(
      (each) =>
        each.project === project &&
        each.sha === sha &&
        each.name === name &&
        (each.state === 'pending' || each.state === 'running'),
    );
    if (open?.state === state) {
      const event = EVENTS[state];
      return {
        status: 400,
        body: {
          message: `Cannot transition status via :${event} from :${state} (Reason(s): Status cannot transition via "${event}")`,
        },
      };
    }
    const status: FakeGitlabStatus = {
      project,
      sha,
      state,
      name,
      description,
      target_url: typeof json.target_url === 'string' ? json.target_url : null,
    };
    statuses.push(status);
    return {
      status: 201,
      body: {
        id: nextId++,
        sha,
        ref: null,
        status: state,
        name,
        target_url: status.target_url,
        description,
        allow_failure: false,
        author: { username: 'project_1_bot' },
      },
    };
  }

  function listNotes(url: URL, project: string, mergeRequest: number): FakeReply {
    const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 20)));
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
    const ordered = notesOf(project, mergeRequest);
    // GitLab's default order is newest first (`sort=desc`).
    const all = url.searchParams.get('sort') === 'asc' ? ordered : ordered.reverse();
    const pages = Math.max(1, Math.ceil(all.length / perPage));
    const pageUrl = (n: number) => {
      const next = new URL(url.pathname + url.search, server.origin);
      next.searchParams.set('page', String(n));
      next.searchParams.set('per_page', String(perPage));
      return next.toString();
    };
    const links = [
      ...(page < pages ? [`<${pageUrl(page + 1)}>; rel="next"`] : []),
      `<${pageUrl(1)}>; rel="first"`,
      `<${pageUrl(pages)}>; rel="last"`,
    ];
    return {
      status: 200,
      body: all.slice((page - 1) * perPage, page * perPage).map(noteJson),
      headers: {
        'x-page': String(page),
        'x-per-page': String(perPage),
        'x-total': String(all.length),
        'x-total-pages': String(pages),
        'x-next-page': page < pages ? String(page + 1) : '',
        'x-prev-page': page > 1 ? String(page - 1) : '',
        link: links.join(', '),
      },
    };
  }

  function noteJson(note: FakeGitlabNote) {
    return {
      id: note.id,
      type: null,
      body: note.body,
      system: false,
      noteable_type: 'MergeRequest',
      noteable_iid: note.mergeRequest,
      author: { username: 'project_1_bot' },
    };
  }

  function addNote(project: string, mergeRequest: number, body: string): number {
    const id = nextId++;
    notes.set(id, { id, project, mergeRequest, body, edits: 0 });
    return id;
  }

  function notesOf(project: string, mergeRequest: number): FakeGitlabNote[] {
    return [...notes.values()].filter(
      (each) => each.project === project && each.mergeRequest === mergeRequest,
    );
  }

  return {
    apiUrl,
    statuses,
    notes,
    requests: server.requests,
    allowToken(token, projects) {
      tokens.set(token, new Set(projects));
    },
    addNote,
    notesOf,
    files,
    setRateLimit(limit) {
      quota = fakeQuota(limit);
    },
    failNext: server.failNext,
    failFor: server.failFor,
    setDown: server.setDown,
    close: server.close,
  };
}
