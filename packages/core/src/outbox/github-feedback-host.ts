import { Octokit } from '@octokit/core';
import { GITHUB_API_URL } from '../storage/store.js';
import type { CommentThread, FeedbackHost, HostRequestContext } from './feedback-host.js';
import { type AttemptAnswer, type RetryPolicy, rateLimitFromHeaders } from './retry-policy.js';

/** A GitHub repository as `owner/name`: GitHub's login rule, then its repository name rule. */
export const GITHUB_REPOSITORY =
  /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}\/[A-Za-z0-9._-]{1,100}$/;

/** Pages of a pull request's comments read while looking for covgate's (100 each). */
const MAX_COMMENT_PAGES = 50;

const client = (context: HostRequestContext) =>
  new Octokit({
    auth: context.token,
    baseUrl: context.apiUrl,
    userAgent: 'covgate',
    request: { fetch: context.fetch },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });

const ownerAndRepo = (repository: string) => {
  const [owner, repo] = repository.split('/') as [string, string];
  return { owner, repo };
};

/**
 * GitHub (github.com or GitHub Enterprise Server) through `@octokit/core`: commit statuses
 * (`POST /repos/{owner}/{repo}/statuses/{sha}`) and the pull request's issue comments, paged
 * by the `Link` header.
 */
export const githubFeedbackHost: FeedbackHost = {
  kind: 'github',
  name: 'GitHub',
  defaultApiUrl: GITHUB_API_URL,

  isRepositoryPath: (path) => GITHUB_REPOSITORY.test(path) && !/\/\.{1,2}$/.test(path),

  async setStatus(context, payload) {
    await client(context).request('POST /repos/{owner}/{repo}/statuses/{sha}', {
      ...ownerAndRepo(payload.repository),
      sha: payload.sha,
      state: payload.state,
      context: payload.context,
      description: payload.description,
      ...(payload.target_url === null ? {} : { target_url: payload.target_url }),
      request: { signal: context.signal() },
    });
  },

  async *listComments(context, thread) {
    const octokit = client(context);
    let response: { data: unknown; headers: { link?: string } } = await octokit.request(
      'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
      {
        ...ownerAndRepo(thread.repository),
        issue_number: thread.number,
        per_page: 100,
        request: { signal: context.signal() },
      },
    );
    for (let page = 1; ; page += 1) {
      for (const comment of response.data as { id: number; body?: string }[]) {
        yield { id: comment.id, body: comment.body ?? '' };
      }
      const next = nextPage(response.headers.link);
      if (next === null || page >= MAX_COMMENT_PAGES) return;
      response = await octokit.request({
        method: 'GET',
        url: next,
        request: { signal: context.signal() },
      });
    }
  },

  async createComment(context, thread, body) {
    const created = await client(context).request(
      'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
      {
        ...ownerAndRepo(thread.repository),
        issue_number: thread.number,
        body,
        request: { signal: context.signal() },
      },
    );
    return { id: Number(created.data.id), body };
  },

  async updateComment(context, thread: CommentThread, id, body) {
    await client(context).request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
      ...ownerAndRepo(thread.repository),
      comment_id: id,
      body,
      request: { signal: context.signal() },
    });
  },

  async deleteComment(context, thread, id) {
    await client(context).request('DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}', {
      ...ownerAndRepo(thread.repository),
      comment_id: id,
      request: { signal: context.signal() },
    });
  },

  answerOf(error) {
    const failure = error as {
      status?: unknown;
      response?: { headers?: Record<string, unknown>; data?: unknown };
    };
    if (!failure?.response || typeof failure.status !== 'number') return null;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(failure.response.headers ?? {})) {
      if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
    }
    const data = failure.response.data as { message?: unknown } | undefined;
    const message = typeof data?.message === 'string' ? data.message.slice(0, 200) : undefined;
    return { status: failure.status, headers, ...(message ? { message } : {}) };
  },

  rateLimitedUntil: githubRateLimitedUntil,

  refusalReason(status, message) {
    const detail = message ? `: ${message}` : '';
    switch (status) {
      case 401:
        return `GitHub refused the credential (401)${detail}`;
      case 403:
        return `GitHub denied access: the credential lacks a permission (403)${detail}`;
      case 404:
        return `GitHub repository, commit or pull request not found, or not visible to the credential (404)${detail}`;
      case 422:
        return `GitHub refused the request (422)${detail}`;
      default:
        return `GitHub answered ${status}${detail}`;
    }
  },
};

/**
 * GitHub documents: a secondary limit (403 or 429) with `retry-after` seconds; a primary limit
 * with `x-ratelimit-remaining: 0` and `x-ratelimit-reset` (epoch seconds); a 429, or a 403
 * whose message names a secondary rate limit, without either header: wait a minute.
 */
function githubRateLimitedUntil(
  answer: AttemptAnswer,
  now: Date,
  policy: RetryPolicy,
): Date | null {
  if (answer.status !== 403 && answer.status !== 429) return null;
  const fromHeaders = rateLimitFromHeaders(answer, now);
  if (fromHeaders !== null) return fromHeaders;
  if (answer.status === 429 || /rate limit/i.test(answer.message ?? '')) {
    return new Date(now.getTime() + policy.rateLimitFallbackMs);
  }
  return null;
}

/** The `rel="next"` URL of a `Link` header, or null. */
export function nextPage(link: string | null | undefined): string | null {
  for (const part of (link ?? '').split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (match?.[1]) return match[1];
  }
  return null;
}
