import { request as httpRequest } from 'node:http';
import { formatTimestamp } from '@covgate/core';
import type { ContractContext } from './harness.js';

/** Escapes `value` so it matches itself literally inside a regular expression. */
export function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The remote address the server saw for `response`, read from the access-log line of its
 * request id: audit lines name the same address, and only the server knows it exactly.
 */
export function remoteOf(ctx: ContractContext, response: Response): string {
  const requestId = response.headers.get('x-request-id');
  const line = ctx.logLines().find((entry) => entry.requestId === requestId);
  if (typeof line?.remoteAddress !== 'string') {
    throw new Error(`no access-log line for request ${requestId}`);
  }
  return line.remoteAddress;
}

/** Starts watching the audit trail; the returned function gives the lines written since. */
export function auditMark(ctx: ContractContext): () => string[] {
  const start = ctx.auditLines.length;
  return () => ctx.auditLines.slice(start);
}

/** The API timestamp (`YYYY-MM-DDThh:mm:ssZ`) of the server clock's now plus `seconds`. */
export function timestampIn(ctx: ContractContext, seconds: number): string {
  return formatTimestamp(new Date(ctx.clock.now().getTime() + seconds * 1000));
}

/** `Authorization: Bearer <token>` and nothing else. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/**
 * Sends `body` as `application/json` with a bearer credential (none when `token` is null).
 * A string body is sent as it is (for malformed JSON); anything else is serialised.
 */
export function sendJson(
  ctx: ContractContext,
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<Response> {
  return ctx.request(path, {
    method,
    headers: {
      ...(token === null ? {} : bearer(token)),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

/**
 * `POST /v1/executions` with an API token: a string body is sent as it is (for malformed JSON),
 * bytes as they are (for gzip), anything else serialised; `headers` add to the JSON ones.
 */
export function ingest(
  ctx: ContractContext,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return ctx.request('/v1/executions', {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json', ...headers },
    body:
      typeof body === 'string'
        ? body
        : body instanceof Uint8Array
          ? new Uint8Array(body)
          : JSON.stringify(body),
  });
}

/** A request with an API token that needs nothing but a valid `execute` token. */
export function listExecutions(
  ctx: ContractContext,
  token: string,
  orgSlug: string,
): Promise<Response> {
  return ctx.request(`/v1/executions?org=${encodeURIComponent(orgSlug)}&repo=r`, {
    headers: bearer(token),
  });
}

/**
 * Sends a request through `node:http` instead of `fetch`, which replaces the `Sec-Fetch-*`
 * headers a browser sends with its own: for cases that play a browser navigation. The answer
 * comes back as a Fetch `Response` (redirects are not followed).
 */
export function rawRequest(
  ctx: ContractContext,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${ctx.baseUrl}${path}`,
      { method: init.method ?? 'GET', headers: init.headers ?? {} },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            for (const item of Array.isArray(value) ? value : [value ?? '']) {
              headers.append(name, item);
            }
          }
          const status = incoming.statusCode ?? 0;
          const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          resolve(new Response(body, { status, headers }));
        });
      },
    );
    request.on('error', reject);
    request.end(init.body);
  });
}

/**
 * The `feedback` of a run recorded for a repository without a code-host link: nothing queued,
 * each item for that reason; as the run's detail shows it (no delivery each) with `detail`.
 */
export function unlinkedFeedback(
  run: { commit?: string | null; pullRequest?: number | null; component?: string } = {},
  detail = false,
): unknown {
  const commit = run.commit ?? null;
  const suffix = run.component === undefined ? '' : ` (${run.component})`;
  const notLinked = (kind: string, name: string) => ({
    kind,
    name,
    queued: false,
    reason: 'not_linked',
    message: 'not sent: the repository is not linked to a code host',
    ...(detail ? { deliveries: [] } : {}),
  });
  return {
    link: null,
    commit:
      commit === null ? 'none' : /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(commit) ? 'full' : 'short',
    pull_request: run.pullRequest ?? null,
    items: [
      notLinked('status_project', `covgate/project${suffix}`),
      notLinked('status_patch', `covgate/patch${suffix}`),
      notLinked('comment', 'comment'),
    ],
  };
}
