import { HostAnswerError, type HostRequestContext } from './feedback-host.js';

/** One request of a code host's REST API, as {@link restRequest} sends it. */
export interface RestRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A path below the API base (`/projects/1/statuses/abc`), or an absolute URL (a next page). */
  path: string;
  /** The host's authentication header (`PRIVATE-TOKEN`, `Authorization`). */
  auth: Record<string, string>;
  /** Sent as JSON. */
  body?: Record<string, unknown>;
}

/** A successful answer: its JSON (null when it had none) and its headers. */
export interface RestAnswer {
  data: unknown;
  headers: Headers;
}

/**
 * Sends one request over the context's guarded `fetch` with its time-out, for the hosts that
 * need no client library of their own. Any answer but a 2xx rejects with a
 * {@link HostAnswerError} carrying its status, headers and message (never its whole body);
 * a network failure rejects with `fetch`'s error.
 */
export async function restRequest(
  context: HostRequestContext,
  request: RestRequest,
): Promise<RestAnswer> {
  const url = /^https?:\/\//.test(request.path) ? request.path : `${context.apiUrl}${request.path}`;
  const response = await context.fetch(url, {
    method: request.method,
    headers: {
      accept: 'application/json',
      'user-agent': 'covgate',
      ...request.auth,
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    signal: context.signal(),
  });
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text === '' ? null : JSON.parse(text);
  } catch {
    data = null;
  }
  if (response.ok) return { data, headers: response.headers };
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  const message = errorMessage(data);
  throw new HostAnswerError({
    status: response.status,
    headers,
    ...(message ? { message: message.slice(0, 200) } : {}),
  });
}

/**
 * The message of an error body: `{"message": "404 Project Not Found"}` (GitLab, Gitea),
 * GitLab's validation errors `{"message": {"description": ["is too long"]}}`, or
 * `{"error": "..."}`. Undefined for anything else (an HTML page, plain text).
 */
export function errorMessage(data: unknown): string | undefined {
  const body = data as { message?: unknown; error?: unknown } | null;
  if (typeof body?.message === 'string') return body.message;
  if (typeof body?.message === 'object' && body.message !== null) {
    return Object.entries(body.message as Record<string, unknown>)
      .map(([field, problems]) =>
        `${field} ${Array.isArray(problems) ? problems.join(', ') : String(problems)}`.trim(),
      )
      .join('; ');
  }
  if (typeof body?.error === 'string') return body.error;
  return undefined;
}
