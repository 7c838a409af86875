import type { CommentThread, FeedbackHost, HostRequestContext } from './feedback-host.js';
import { nextPage } from './github-feedback-host.js';
import { restRequest } from './rest-request.js';
import { type AttemptAnswer, type RetryPolicy, rateLimitFromHeaders } from './retry-policy.js';

/** A Gitea or Forgejo owner or repository name. */
const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/** Pages of a pull request's comments read while looking for covgate's. */
const MAX_COMMENT_PAGES = 50;

const auth = (context: HostRequestContext) => ({ authorization: `token ${context.token}` });

const repo = (path: string) => {
  const [owner, name] = path.split('/') as [string, string];
  return `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
};

const comments = (thread: CommentThread) => `${repo(thread.repository)}/issues`;

/**
 * Gitea and Forgejo (any base URL, `https://<host>/api/v1`), authenticated with an access token
 * (`Authorization: token ...`): commit statuses (`POST /repos/{owner}/{repo}/statuses/{sha}`)
 * and the pull request's issue comments, paged by the `Link` header when the server pages them.
 */
export const giteaFeedbackHost: FeedbackHost = {
  kind: 'gitea',
  name: 'Gitea',
  defaultApiUrl: null,

  isRepositoryPath(path) {
    const parts = path.split('/');
    return (
      parts.length === 2 && parts.every((part) => NAME.test(part) && part !== '.' && part !== '..')
    );
  },

  async setStatus(context, payload) {
    await restRequest(context, {
      method: 'POST',
      path: `${repo(payload.repository)}/statuses/${payload.sha}`,
      auth: auth(context),
      body: {
        state: payload.state,
        context: payload.context,
        description: payload.description,
        ...(payload.target_url === null ? {} : { target_url: payload.target_url }),
      },
    });
  },

  async *listComments(context, thread) {
    let path: string | null = `${comments(thread)}/${thread.number}/comments`;
    for (let page = 1; path !== null; page += 1) {
      const { data, headers } = await restRequest(context, {
        method: 'GET',
        path,
        auth: auth(context),
      });
      for (const comment of (Array.isArray(data) ? data : []) as { id: number; body?: string }[]) {
        yield { id: comment.id, body: comment.body ?? '' };
      }
      path = page >= MAX_COMMENT_PAGES ? null : nextPage(headers.get('link'));
    }
  },

  async createComment(context, thread, body) {
    const { data } = await restRequest(context, {
      method: 'POST',
      path: `${comments(thread)}/${thread.number}/comments`,
      auth: auth(context),
      body: { body },
    });
    return { id: (data as { id: number }).id, body };
  },

  async updateComment(context, thread, id, body) {
    await restRequest(context, {
      method: 'PATCH',
      path: `${comments(thread)}/comments/${id}`,
      auth: auth(context),
      body: { body },
    });
  },

  async deleteComment(context, thread, id) {
    await restRequest(context, {
      method: 'DELETE',
      path: `${comments(thread)}/comments/${id}`,
      auth: auth(context),
    });
  },

  answerOf: () => null,

  rateLimitedUntil: giteaRateLimitedUntil,

  refusalReason(status, message) {
    const detail = message ? `: ${message}` : '';
    switch (status) {
      case 401:
        return `Gitea refused the token (401)${detail}`;
      case 403:
        return `Gitea denied access: the token lacks the write:repository or write:issue scope (403)${detail}`;
      case 404:
        return `Gitea repository, commit or pull request not found, or not visible to the token (404)${detail}`;
      case 422:
        return `Gitea refused the request (422)${detail}`;
      default:
        return `Gitea answered ${status}${detail}`;
    }
  },
};

/**
 * Gitea itself sets no API rate limit; a proxy in front of it may answer `429` with
 * `Retry-After`. An answer without it waits the policy's fallback.
 */
function giteaRateLimitedUntil(answer: AttemptAnswer, now: Date, policy: RetryPolicy): Date | null {
  if (answer.status !== 429) return null;
  return rateLimitFromHeaders(answer, now) ?? new Date(now.getTime() + policy.rateLimitFallbackMs);
}
