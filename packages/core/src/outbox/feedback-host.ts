import type { CodeHostKind } from '../storage/store.js';
import type { StatusPayload } from './delivery-payload.js';
import type { AttemptAnswer, HostAnswerRules } from './retry-policy.js';

/** How one delivery reaches its code host: where, as whom, through which `fetch`. */
export interface HostRequestContext {
  /** The REST API base of the repository's link, without a trailing `/`. */
  apiUrl: string;
  /** The decrypted credential; for this delivery's requests only, never logged. */
  token: string;
  /** The guarded `fetch` (public addresses only, unless the operator allows others). */
  fetch: typeof fetch;
  /** A fresh time-out signal for one request. */
  signal(): AbortSignal;
}

/** A merge or pull request: the repository's path on its host and the request's number. */
export interface CommentThread {
  repository: string;
  /** GitHub's and Gitea's pull-request number, GitLab's merge-request `iid`. */
  number: number;
}

/** A comment (GitLab: a note) of a merge or pull request. */
export interface HostComment {
  id: number;
  body: string;
}

/**
 * A refusal of the code host, already in the retry policy's terms. Hosts on plain `fetch`
 * throw it for every answer that is not a success; the sender turns it into an attempt.
 */
export class HostAnswerError extends Error {
  constructor(readonly answer: AttemptAnswer) {
    super(`answered ${answer.status}`);
    this.name = 'HostAnswerError';
  }
}

/**
 * A code host covgate gives feedback on: a commit status, and the one covgate comment of a
 * merge or pull request, which the sender finds by its hidden marker and keeps single (see
 * `feedback-sender.ts`). One file per host implements it; `feedback-hosts.ts` lists them.
 * Every method rejects with the host's answer for a refusal ({@link FeedbackHost.answerOf}
 * reads it) or with the network's error.
 */
export interface FeedbackHost extends HostAnswerRules {
  readonly kind: CodeHostKind;
  /** The API base a link gets when it names none, or null when a link must name one. */
  readonly defaultApiUrl: string | null;
  /** Whether `path` is a repository path this host allows (`owner/name`, `group/sub/project`). */
  isRepositoryPath(path: string): boolean;
  /** Sets the commit status (`payload.context` names it). */
  setStatus(context: HostRequestContext, payload: StatusPayload): Promise<void>;
  /** The request's comments, oldest first, page after page as they are iterated. */
  listComments(context: HostRequestContext, thread: CommentThread): AsyncIterable<HostComment>;
  createComment(
    context: HostRequestContext,
    thread: CommentThread,
    body: string,
  ): Promise<HostComment>;
  updateComment(
    context: HostRequestContext,
    thread: CommentThread,
    id: number,
    body: string,
  ): Promise<void>;
  deleteComment(context: HostRequestContext, thread: CommentThread, id: number): Promise<void>;
  /** The host's answer carried by a rejection of the methods above, or null (no answer came). */
  answerOf(error: unknown): AttemptAnswer | null;
}
