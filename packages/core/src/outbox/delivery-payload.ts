import { CODE_HOST_KINDS, type CodeHostKind, type DeliveryKind } from '../storage/store.js';

/** The repository a delivery goes to, as linked when its run was recorded. */
export interface PayloadRepository {
  host: CodeHostKind;
  /** Its path on the host: `owner/name`, or GitLab's `group/subgroup/project`. */
  repository: string;
}

/** A commit status to set, as enqueued. */
export interface StatusPayload extends PayloadRepository {
  /** The full commit SHA (40 or 64 hex). */
  sha: string;
  state: 'success' | 'failure' | 'error' | 'pending';
  /** `covgate/project`, `covgate/patch`, or either with ` (component)`. */
  context: string;
  /** At most 140 characters. */
  description: string;
  /** The run page, or null when covgate knows no absolute URL of its dashboard. */
  target_url: string | null;
}

/** The merge/pull-request comment to upsert, as enqueued. */
export interface CommentPayload extends PayloadRepository {
  /** The pull request's number (GitLab: the merge request's `iid`). */
  pull_request: number;
  /** The hidden line a comment is found again by. */
  marker: string;
  /** The run it reports: an update never replaces a comment of a newer run. */
  execution_id: string;
  /** The whole Markdown body, marker included. */
  body: string;
  /**
   * The run's page, which the changed lines the body lists when sent link to; null or absent
   * (a payload of an earlier release) when covgate knows no absolute URL of its dashboard.
   */
  run_url?: string | null;
}

/** The payload each delivery kind carries. */
export type DeliveryPayload<Kind extends DeliveryKind> = Kind extends 'comment'
  ? CommentPayload
  : StatusPayload;

const GITHUB_REPO = /^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/;
const REPOSITORY_PATH = /^[^\p{Cc}\s]{1,1024}$/u;
const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The stored JSON of a payload. A GitHub delivery keeps the `github_repo` field every release
 * reads (a process of the previous release, during a rolling upgrade, sends it as before);
 * the other hosts' carry `host` and `repository`.
 */
export function deliveryPayloadJson(payload: StatusPayload | CommentPayload): string {
  const { host, repository, ...rest } = payload;
  return JSON.stringify(
    host === 'github' ? { github_repo: repository, ...rest } : { host, repository, ...rest },
  );
}

/** The repository of a stored payload, or null when it names none this version knows. */
function repositoryOf(payload: Record<string, unknown>): PayloadRepository | null {
  if (typeof payload.github_repo === 'string') {
    return GITHUB_REPO.test(payload.github_repo)
      ? { host: 'github', repository: payload.github_repo }
      : null;
  }
  const host = CODE_HOST_KINDS.find((kind) => kind === payload.host);
  if (host === undefined || host === 'github') return null;
  if (typeof payload.repository !== 'string' || !REPOSITORY_PATH.test(payload.repository)) {
    return null;
  }
  return { host, repository: payload.repository };
}

/**
 * The payload of a stored delivery, checked: null when the JSON is not one this version
 * writes (a delivery from a newer release, or a damaged row), which the worker fails.
 */
export function parseDeliveryPayload(
  kind: DeliveryKind,
  text: string,
): StatusPayload | CommentPayload | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const {
    github_repo: _github,
    host: _host,
    repository: _path,
    ...payload
  } = value as Record<string, unknown>;
  const where = repositoryOf(value as Record<string, unknown>);
  if (where === null) return null;
  if (kind === 'comment') {
    const ok =
      Number.isSafeInteger(payload.pull_request) &&
      (payload.pull_request as number) > 0 &&
      typeof payload.marker === 'string' &&
      typeof payload.execution_id === 'string' &&
      typeof payload.body === 'string' &&
      (payload.run_url === undefined ||
        payload.run_url === null ||
        typeof payload.run_url === 'string');
    return ok ? ({ ...where, ...payload } as unknown as CommentPayload) : null;
  }
  const ok =
    typeof payload.sha === 'string' &&
    SHA.test(payload.sha) &&
    (payload.state === 'success' ||
      payload.state === 'failure' ||
      payload.state === 'error' ||
      payload.state === 'pending') &&
    typeof payload.context === 'string' &&
    typeof payload.description === 'string' &&
    (payload.target_url === null || typeof payload.target_url === 'string');
  return ok ? ({ ...where, ...payload } as unknown as StatusPayload) : null;
}
