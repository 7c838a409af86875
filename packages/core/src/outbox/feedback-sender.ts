import {
  createCodeHostAddressPolicy,
  type HostResolver,
  type PrivateCodeHostAllowance,
  systemResolver,
} from '../code-hosts/code-host-address.js';
import { CodeHostAddressError, createGuardedFetch } from '../code-hosts/guarded-fetch.js';
import type { CodeHostKind } from '../storage/store.js';
import type { CommentPayload, StatusPayload } from './delivery-payload.js';
import {
  type CommentThread,
  type FeedbackHost,
  HostAnswerError,
  type HostComment,
  type HostRequestContext,
} from './feedback-host.js';
import { FEEDBACK_HOSTS } from './feedback-hosts.js';
import type { AttemptAnswer } from './retry-policy.js';
import { commentRunId } from './run-feedback.js';

/** Where and as whom a delivery is sent. */
export interface FeedbackTarget {
  /** The REST API base (`https://api.github.com`, `https://gitlab.example.com/api/v4`...). */
  apiUrl: string;
  /** The decrypted token; used for this delivery only, never logged. */
  token: string;
}

/** How one send ended. */
export type SendResult =
  | { ok: true; detail: 'status set' | 'comment created' | 'comment updated' | 'comment newer' }
  | { ok: false; answer: AttemptAnswer };

/** Options of {@link createFeedbackSender}. */
export interface FeedbackSenderOptions {
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
  /** The code hosts by kind (default {@link FEEDBACK_HOSTS}). */
  hosts?: Readonly<Record<CodeHostKind, FeedbackHost>>;
}

/** Sends the outbox's deliveries to the code host each payload names. */
export interface FeedbackSender {
  setStatus(target: FeedbackTarget, payload: StatusPayload): Promise<SendResult>;
  /**
   * Creates the request's covgate comment, or updates the one its marker finds, unless that
   * one shows a newer run.
   */
  upsertComment(target: FeedbackTarget, payload: CommentPayload): Promise<SendResult>;
}

/**
 * A sender over the {@link FeedbackHost} of each payload's host. The host's refusals and
 * network failures come back as an {@link AttemptAnswer} for the retry policy; nothing in
 * them carries the token.
 */
export function createFeedbackSender(options: FeedbackSenderOptions = {}): FeedbackSender {
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const hosts = options.hosts ?? FEEDBACK_HOSTS;
  const fetchThrough =
    options.fetch ??
    createGuardedFetch({
      policy: createCodeHostAddressPolicy(options.allowPrivateCodeHosts),
      resolve: options.resolveHost ?? systemResolver,
    });
  const contextOf = (target: FeedbackTarget): HostRequestContext => ({
    apiUrl: target.apiUrl.replace(/\/+$/, ''),
    token: target.token,
    fetch: fetchThrough,
    signal: () => AbortSignal.timeout(timeoutMs),
  });

  return {
    async setStatus(target, payload) {
      const host = hosts[payload.host];
      return attempt(host, async () => {
        await host.setStatus(contextOf(target), payload);
        return 'status set';
      });
    },

    async upsertComment(target, payload) {
      const host = hosts[payload.host];
      const context = contextOf(target);
      const thread: CommentThread = {
        repository: payload.repository,
        number: payload.pull_request,
      };
      const find = () => findComment(host, context, thread, payload.marker);
      return attempt(host, async () => {
        const existing = await find();
        if (existing !== null) return update(existing);
        const created = await host.createComment(context, thread, payload.body);
        // Two processes sending two pushes' comments at once both find none and both create
        // one: the oldest stays, and the sender of any other deletes its own and edits it.
        const oldest = await find();
        if (oldest === null || oldest.id === created.id) return 'comment created';
        await host.deleteComment(context, thread, created.id);
        return update(oldest);
      });

      async function update(existing: HostComment) {
        // A comment of a newer run (a later push sent first) stays as it is.
        const shown = commentRunId(existing.body);
        if (shown !== null && shown > payload.execution_id) return 'comment newer' as const;
        await host.updateComment(context, thread, existing.id, payload.body);
        return 'comment updated' as const;
      }
    },
  };
}

/** covgate's comment on the request (its first line is the marker), the oldest one, or null. */
async function findComment(
  host: FeedbackHost,
  context: HostRequestContext,
  thread: CommentThread,
  marker: string,
): Promise<HostComment | null> {
  for await (const comment of host.listComments(context, thread)) {
    if (comment.body.split('\n', 1)[0]?.trim() === marker) return comment;
  }
  return null;
}

/** Runs a send; an answer the host refused or that never came becomes an {@link AttemptAnswer}. */
async function attempt(
  host: FeedbackHost,
  send: () => Promise<Extract<SendResult, { ok: true }>['detail']>,
): Promise<SendResult> {
  try {
    return { ok: true, detail: await send() };
  } catch (error) {
    const answer =
      error instanceof HostAnswerError
        ? error.answer
        : (host.answerOf(error) ?? { status: null, headers: {}, message: networkMessage(error) });
    return { ok: false, answer };
  }
}

/**
 * A network failure in a few words: its code (`ECONNREFUSED`), a time-out, or why the code
 * host's address was refused.
 */
function networkMessage(error: unknown): string {
  const failure = error as { message?: unknown; cause?: unknown } | undefined;
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
