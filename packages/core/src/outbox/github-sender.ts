import { Octokit } from '@octokit/core';
import {
  createCodeHostAddressPolicy,
  type HostResolver,
  type PrivateCodeHostAllowance,
  systemResolver,
} from '../code-hosts/code-host-address.js';
import { CodeHostAddressError, createGuardedFetch } from '../code-hosts/guarded-fetch.js';
import type { CommentPayload, StatusPayload } from './delivery-payload.js';
import type { AttemptAnswer } from './retry-policy.js';
import { commentRunId } from './run-feedback.js';

/** Where and as whom a delivery is sent. */
export interface GithubTarget {
  /** The REST API base (`https://api.github.com`, `https://ghe.example.com/api/v3`). */
  apiUrl: string;
  /** The decrypted token; used for this request only, never logged. */
  token: string;
}

/** How one send ended. */
export type SendResult =
  | { ok: true; detail: 'status set' | 'comment created' | 'comment updated' | 'comment newer' }
  | { ok: false; answer: AttemptAnswer };

/** Options of {@link createGithubSender}. */
export interface GithubSenderOptions {
  /**
   * The `fetch` requests go through. Default: one that connects only to public addresses
   * (see `allowPrivateCodeHosts`), checked at every connection.
   */
  fetch?: typeof fetch;
  /**
   * Non-public addresses (loopback, private, link-local...) the default `fetch` may reach:
   * `true` for all, or a list of addresses and CIDR ranges (`ALLOW_PRIVATE_CODE_HOSTS`).
   * Default none.
   */
  allowPrivateCodeHosts?: PrivateCodeHostAllowance;
  /** How the default `fetch` resolves host names (tests inject one; default the system's). */
  resolveHost?: HostResolver;
  /** How long one request may take before it counts as no answer (default 10 s). */
  requestTimeoutMs?: number;
}

/** Sends the deliveries of the outbox to GitHub's REST API. */
export interface GithubSender {
  setStatus(target: GithubTarget, payload: StatusPayload): Promise<SendResult>;
  upsertComment(target: GithubTarget, payload: CommentPayload): Promise<SendResult>;
}

/** Pages of a pull request's comments read while looking for covgate's (100 each). */
const MAX_COMMENT_PAGES = 50;

/**
 * A sender over `@octokit/core`, one client per send (the token differs per repository).
 * GitHub's refusals and network failures come back as an {@link AttemptAnswer} for the retry
 * policy; nothing in them carries the token.
 */
export function createGithubSender(options: GithubSenderOptions = {}): GithubSender {
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const fetchThrough =
    options.fetch ??
    createGuardedFetch({
      policy: createCodeHostAddressPolicy(options.allowPrivateCodeHosts),
      resolve: options.resolveHost ?? systemResolver,
    });
  const client = (target: GithubTarget) =>
    new Octokit({
      auth: target.token,
      baseUrl: target.apiUrl.replace(/\/+$/, ''),
      userAgent: 'covgate',
      request: { fetch: fetchThrough },
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
  const limits = () => ({ request: { signal: AbortSignal.timeout(timeoutMs) } });

  return {
    async setStatus(target, payload) {
      const [owner, repo] = payload.github_repo.split('/') as [string, string];
      return attempt(async () => {
        await client(target).request('POST /repos/{owner}/{repo}/statuses/{sha}', {
          owner,
          repo,
          sha: payload.sha,
          state: payload.state,
          context: payload.context,
          description: payload.description,
          ...(payload.target_url === null ? {} : { target_url: payload.target_url }),
          ...limits(),
        });
        return 'status set';
      });
    },

    async upsertComment(target, payload) {
      const [owner, repo] = payload.github_repo.split('/') as [string, string];
      const octokit = client(target);
      return attempt(async () => {
        const existing = await findComment(octokit, owner, repo, payload, limits);
        if (existing !== null) return update(existing);
        const created = await octokit.request(
          'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
          { owner, repo, issue_number: payload.pull_request, body: payload.body, ...limits() },
        );
        // Two processes sending two pushes' comments at once both find none and both create
        // one: the oldest stays, and the sender of any other deletes its own and edits it.
        const oldest = await findComment(octokit, owner, repo, payload, limits);
        if (oldest === null || oldest.id === created.data.id) return 'comment created';
        await octokit.request('DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}', {
          owner,
          repo,
          comment_id: created.data.id,
          ...limits(),
        });
        return update(oldest);
      });

      async function update(existing: { id: number; body: string }) {
        // A comment of a newer run (a later push sent first) stays as it is.
        const shown = commentRunId(existing.body);
        if (shown !== null && shown > payload.execution_id) return 'comment newer' as const;
        await octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
          owner,
          repo,
          comment_id: existing.id,
          body: payload.body,
          ...limits(),
        });
        return 'comment updated' as const;
      }
    },
  };
}

/** covgate's comment on the pull request (its first line is the marker), or null. */
async function findComment(
  octokit: Octokit,
  owner: string,
  repo: string,
  payload: CommentPayload,
  limits: () => { request: { signal: AbortSignal } },
): Promise<{ id: number; body: string } | null> {
  let response: { data: unknown; headers: { link?: string } } = await octokit.request(
    'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
    {
      owner,
      repo,
      issue_number: payload.pull_request,
      per_page: 100,
      ...limits(),
    },
  );
  for (let page = 1; ; page += 1) {
    for (const comment of response.data as { id: number; body?: string }[]) {
      const body = comment.body ?? '';
      if (body.split('\n', 1)[0]?.trim() === payload.marker) return { id: comment.id, body };
    }
    const next = nextPage(response.headers.link);
    if (next === null || page >= MAX_COMMENT_PAGES) return null;
    response = await octokit.request({ method: 'GET', url: next, ...limits() });
  }
}

/** The `rel="next"` URL of a `Link` header, or null. */
export function nextPage(link: string | undefined): string | null {
  for (const part of (link ?? '').split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (match?.[1]) return match[1];
  }
  return null;
}

/** Runs a send; an answer GitHub refused or that never came becomes an {@link AttemptAnswer}. */
async function attempt(
  send: () => Promise<Extract<SendResult, { ok: true }>['detail']>,
): Promise<SendResult> {
  try {
    return { ok: true, detail: await send() };
  } catch (error) {
    return { ok: false, answer: answerOf(error) };
  }
}

function answerOf(error: unknown): AttemptAnswer {
  const failure = error as {
    status?: unknown;
    response?: { headers?: Record<string, unknown>; data?: unknown };
    message?: unknown;
    name?: unknown;
    cause?: unknown;
  };
  if (failure?.response && typeof failure.status === 'number') {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(failure.response.headers ?? {})) {
      if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
    }
    const data = failure.response.data as { message?: unknown } | undefined;
    const message = typeof data?.message === 'string' ? data.message.slice(0, 200) : undefined;
    return { status: failure.status, headers, ...(message ? { message } : {}) };
  }
  return { status: null, headers: {}, message: networkMessage(failure) };
}

/**
 * A network failure in a few words: its code (`ECONNREFUSED`), a time-out, or why the code
 * host's address was refused.
 */
function networkMessage(failure: { message?: unknown; cause?: unknown } | undefined): string {
  let cause: unknown = failure;
  for (let depth = 0; depth < 5 && cause; depth += 1) {
    if (cause instanceof CodeHostAddressError) return `address refused: ${cause.message}`;
    const current = cause as { code?: unknown; name?: unknown; cause?: unknown };
    if (typeof current.code === 'string' && /^E[A-Z_]+$/.test(current.code)) return current.code;
    if (current.name === 'TimeoutError' || current.name === 'AbortError') return 'timed out';
    cause = current.cause;
  }
  return typeof failure?.message === 'string' && /abort|timeout/i.test(failure.message)
    ? 'timed out'
    : 'network error';
}
