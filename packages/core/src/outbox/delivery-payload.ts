import type { DeliveryKind } from '../storage/store.js';

/** A commit status to set (`POST /repos/{owner}/{repo}/statuses/{sha}`), as enqueued. */
export interface StatusPayload {
  /** `owner/name` on GitHub, as linked when the run was recorded. */
  github_repo: string;
  /** The full commit SHA (40 or 64 hex). */
  sha: string;
  state: 'success' | 'failure' | 'error';
  /** `covgate/project`, `covgate/patch`, or either with ` (component)`. */
  context: string;
  /** At most 140 characters. */
  description: string;
  /** The run page, or null when covgate knows no absolute URL of its dashboard. */
  target_url: string | null;
}

/** The pull-request comment to upsert, as enqueued. */
export interface CommentPayload {
  github_repo: string;
  pull_request: number;
  /** The hidden line a comment is found again by. */
  marker: string;
  /** The run it reports: an update never replaces a comment of a newer run. */
  execution_id: string;
  /** The whole Markdown body, marker included. */
  body: string;
}

/** The payload each delivery kind carries. */
export type DeliveryPayload<Kind extends DeliveryKind> = Kind extends 'comment'
  ? CommentPayload
  : StatusPayload;

const GITHUB_REPO = /^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/;
const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

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
  const payload = value as Record<string, unknown>;
  if (typeof payload.github_repo !== 'string' || !GITHUB_REPO.test(payload.github_repo)) {
    return null;
  }
  if (kind === 'comment') {
    const ok =
      Number.isSafeInteger(payload.pull_request) &&
      (payload.pull_request as number) > 0 &&
      typeof payload.marker === 'string' &&
      typeof payload.execution_id === 'string' &&
      typeof payload.body === 'string';
    return ok ? (payload as unknown as CommentPayload) : null;
  }
  const ok =
    typeof payload.sha === 'string' &&
    SHA.test(payload.sha) &&
    (payload.state === 'success' || payload.state === 'failure' || payload.state === 'error') &&
    typeof payload.context === 'string' &&
    typeof payload.description === 'string' &&
    (payload.target_url === null || typeof payload.target_url === 'string');
  return ok ? (payload as unknown as StatusPayload) : null;
}
