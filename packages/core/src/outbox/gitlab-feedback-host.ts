import {
  type CommentThread,
  type FeedbackHost,
  HostAnswerError,
  type HostRequestContext,
} from './feedback-host.js';
import { nextPage } from './github-feedback-host.js';
import { restRequest } from './rest-request.js';
import { type AttemptAnswer, type RetryPolicy, rateLimitFromHeaders } from './retry-policy.js';

/** gitlab.com's REST API; a self-managed instance's is `https://<host>/api/v4`. */
export const GITLAB_API_URL = 'https://gitlab.com/api/v4';

/** One segment of a GitLab path: a group's, a subgroup's or the project's. */
const PATH_SEGMENT = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,253}[A-Za-z0-9_-])?$/;

/** Groups nest 20 deep at most, the project below them. */
const MAX_SEGMENTS = 21;

/** Pages of a merge request's notes read while looking for covgate's (100 each). */
const MAX_NOTE_PAGES = 50;

const auth = (context: HostRequestContext) => ({ 'private-token': context.token });

/** The project's id in a URL: its full path, URL-encoded (`group%2Fsub%2Fproject`). */
const project = (path: string) => `/projects/${encodeURIComponent(path)}`;

const notes = (thread: CommentThread) =>
  `${project(thread.repository)}/merge_requests/${thread.number}/notes`;

/** GitLab's commit status states: `failure` and `error` are both `failed`. */
const STATES = {
  success: 'success',
  failure: 'failed',
  error: 'failed',
  pending: 'pending',
} as const;

/**
 * GitLab (gitlab.com or self-managed at any base URL) on its REST API v4, authenticated with a
 * project or group access token (`PRIVATE-TOKEN`): commit statuses
 * (`POST /projects/:id/statuses/:sha`, the status named by `name`) and the merge request's
 * notes, paged by `x-next-page` (or the `Link` header).
 */
export const gitlabFeedbackHost: FeedbackHost = {
  kind: 'gitlab',
  name: 'GitLab',
  defaultApiUrl: GITLAB_API_URL,

  isRepositoryPath(path) {
    const segments = path.split('/');
    return (
      path.length <= 1024 &&
      segments.length >= 2 &&
      segments.length <= MAX_SEGMENTS &&
      segments.every((segment) => PATH_SEGMENT.test(segment) && !/\.(?:git|atom)$/.test(segment))
    );
  },

  async setStatus(context, payload) {
    // Only a pending or running status is reused (and refuses the same state again, "Cannot
    // transition status"); a finished one, all covgate sets, is a new status each time.
    // A commit waiting for parts is `pending` again with another text (`2 of 3 parts`): GitLab
    // keeps a pending status and refuses `pending` on it, so the commit shows its first text
    // until the verdict; the refusal is that, not a failure.
    await restRequest(context, {
      method: 'POST',
      path: `${project(payload.repository)}/statuses/${payload.sha}`,
      auth: auth(context),
      body: {
        state: STATES[payload.state],
        name: payload.context,
        description: payload.description,
        ...(payload.target_url === null ? {} : { target_url: payload.target_url }),
      },
    }).catch((error: unknown) => {
      const stillPending =
        payload.state === 'pending' &&
        error instanceof HostAnswerError &&
        error.answer.status === 400 &&
        /^Cannot transition status via :enqueue from :pending/.test(error.answer.message ?? '');
      if (!stillPending) throw error;
    });
  },

  async *listComments(context, thread) {
    let path: string | null = `${notes(thread)}?sort=asc&order_by=created_at&per_page=100`;
    for (let page = 1; path !== null; page += 1) {
      const { data, headers } = await restRequest(context, {
        method: 'GET',
        path,
        auth: auth(context),
      });
      for (const note of (Array.isArray(data) ? data : []) as { id: number; body?: string }[]) {
        yield { id: note.id, body: note.body ?? '' };
      }
      if (page >= MAX_NOTE_PAGES) return;
      const next = headers.get('x-next-page')?.trim();
      path =
        next !== undefined && /^\d+$/.test(next)
          ? `${notes(thread)}?sort=asc&order_by=created_at&per_page=100&page=${next}`
          : nextPage(headers.get('link'));
    }
  },

  async createComment(context, thread, body) {
    const { data } = await restRequest(context, {
      method: 'POST',
      path: notes(thread),
      auth: auth(context),
      body: { body },
    });
    return { id: (data as { id: number }).id, body };
  },

  async updateComment(context, thread, id, body) {
    await restRequest(context, {
      method: 'PUT',
      path: `${notes(thread)}/${id}`,
      auth: auth(context),
      body: { body },
    });
  },

  async deleteComment(context, thread, id) {
    await restRequest(context, {
      method: 'DELETE',
      path: `${notes(thread)}/${id}`,
      auth: auth(context),
    });
  },

  answerOf: () => null,

  rateLimitedUntil: gitlabRateLimitedUntil,

  refusalReason(status, message) {
    const detail = message ? `: ${message}` : '';
    switch (status) {
      case 401:
        return `GitLab refused the token: revoked, expired or mistyped (401)${detail}`;
      case 403:
        return `GitLab denied access: the token lacks the api scope or the Developer role (403)${detail}`;
      case 404:
        return `GitLab project, commit or merge request not found, or not visible to the token (404)${detail}`;
      case 400:
      case 422:
        return `GitLab refused the request (${status})${detail}`;
      default:
        return `GitLab answered ${status}${detail}`;
    }
  },
};

/**
 * GitLab answers a rate limit with `429`, `Retry-After` (seconds) and `RateLimit-Reset` (epoch
 * seconds); an answer without either waits the policy's fallback.
 */
function gitlabRateLimitedUntil(
  answer: AttemptAnswer,
  now: Date,
  policy: RetryPolicy,
): Date | null {
  if (answer.status !== 429) return null;
  return rateLimitFromHeaders(answer, now) ?? new Date(now.getTime() + policy.rateLimitFallbackMs);
}
