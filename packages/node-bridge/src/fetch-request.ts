import type { IncomingMessage } from 'node:http';
import { MAX_BODY_BYTES } from '@covgate/core';
import { declaresTooLargeBody, hasRequestBody, limitedBodyStream } from './limited-body-stream.js';
import { PayloadTooLargeError } from './payload-too-large-error.js';
import { requestHeadersOf } from './request-headers.js';
import { requestOriginOf } from './request-origin.js';
import { pathAndQueryOf, requestUrlOf } from './request-target.js';
import { isFetchMethod, UnsupportedMethodError } from './unsupported-method-error.js';

/** Options of {@link toFetchRequest}. */
export interface ToFetchRequestOptions {
  /** Path and query as covgate sees them. Default: `req.url`. */
  url?: string;
  /**
   * Origin of the request URL, e.g. `https://ci.example.com`. Default: from the socket
   * (TLS or not) and a well-formed `Host` header, else `http://localhost`.
   */
  origin?: string;
  /** Body limit in bytes. Default `MAX_BODY_BYTES` of `@covgate/core` (the core's own). */
  maxBodyBytes?: number;
  /**
   * The body when a framework already read it: the exact bytes received (never a
   * re-serialisation), a stream to read instead (such as {@link erroredBody}), or `null`
   * for no body. Default: streamed from `req`.
   */
  body?: Uint8Array | ReadableStream<Uint8Array> | null;
}

const NativeRequest = globalThis.Request;
const STATE = Symbol('covgate.nodeRequest');

interface NodeRequestState {
  req: IncomingMessage;
  method: string;
  url: string;
  options: ToFetchRequestOptions;
  headers: Headers | undefined;
  native: Request | undefined;
}

/**
 * A Fetch `Request` read from a Node request on demand: method, URL and headers are plain
 * values, and a native `Request` (with its `AbortSignal` and body stream, which on Node 20
 * cost more than the rest of a small request) is built only when something reads the body
 * or another property. `instanceof Request` holds.
 */
class NodeRequest {
  [STATE]: NodeRequestState;

  constructor(state: NodeRequestState) {
    this[STATE] = state;
  }

  get method(): string {
    return this[STATE].method;
  }

  get url(): string {
    return this[STATE].url;
  }

  get headers(): Headers {
    const state = this[STATE];
    state.headers ??= headersOf(state);
    return state.headers;
  }

  /** `null` without building the native request when there is no body to read. */
  get body(): ReadableStream<Uint8Array> | null {
    const state = this[STATE];
    if (state.native === undefined && !carriesBody(state)) return null;
    return nativeOf(this).body;
  }
}

/** Whether the request has a body a native `Request` would stream: the cheap check first. */
function carriesBody(state: NodeRequestState): boolean {
  if (!hasBody(state.method)) return false;
  const { body } = state.options;
  if (body === undefined) return hasRequestBody(state.req);
  return body !== null && (body instanceof ReadableStream || body.byteLength > 0);
}

function headersOf(state: NodeRequestState): Headers {
  const headers = requestHeadersOf(state.req);
  const { body } = state.options;
  if (body instanceof Uint8Array && body.byteLength > 0 && hasBody(state.method)) {
    // The framework may have decoded the transfer; the bytes given are what covgate gets.
    headers.delete('transfer-encoding');
    headers.set('content-length', String(body.byteLength));
  }
  return headers;
}

function hasBody(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}

function nativeOf(request: NodeRequest): Request {
  const state = request[STATE];
  if (state.native === undefined) {
    const body = hasBody(state.method) ? bodyOf(state.req, state.options) : null;
    const init: RequestInit & { duplex?: 'half' } = {
      method: state.method,
      headers: request.headers,
      body,
    };
    if (body instanceof ReadableStream) init.duplex = 'half';
    state.native = new NativeRequest(state.url, init);
  }
  return state.native;
}

for (const name of [
  'bodyUsed',
  'cache',
  'credentials',
  'destination',
  'duplex',
  'integrity',
  'keepalive',
  'mode',
  'redirect',
  'referrer',
  'referrerPolicy',
  'signal',
] as const) {
  Object.defineProperty(NodeRequest.prototype, name, {
    get(this: NodeRequest) {
      return (nativeOf(this) as unknown as Record<string, unknown>)[name];
    },
  });
}
for (const name of ['arrayBuffer', 'blob', 'bytes', 'clone', 'formData', 'json', 'text'] as const) {
  Object.defineProperty(NodeRequest.prototype, name, {
    value(this: NodeRequest) {
      const native = nativeOf(this) as unknown as Record<string, () => unknown>;
      return native[name]?.call(native);
    },
  });
}
Object.setPrototypeOf(NodeRequest.prototype, NativeRequest.prototype);

/**
 * The Fetch `Request` covgate's core answers, from a Node request: method, every header
 * (repeated ones joined, so a duplicated `Authorization` is seen), and the body as a lazily
 * read, size-limited stream (or the given bytes).
 *
 * Over the limit (declared, or counted while streaming), reading the body fails with
 * {@link PayloadTooLargeError} (`status` 413) and the core answers
 * `413 {"error":"payload too large"}`. `GET` and `HEAD` never carry a body, nor do requests
 * without `Transfer-Encoding` or a non-zero `Content-Length`.
 *
 * @throws UnsupportedMethodError for `TRACE`, `TRACK` and `CONNECT`.
 */
export function toFetchRequest(req: IncomingMessage, options: ToFetchRequestOptions = {}): Request {
  const method = req.method ?? 'GET';
  if (!isFetchMethod(method)) throw new UnsupportedMethodError(method);
  const origin = options.origin ?? requestOriginOf(req);
  // The URL parser normalises the path (dot segments, percent-encoding) as a Request would.
  const url = requestUrlOf(origin, pathAndQueryOf(options.url ?? req.url ?? '/'));
  return new NodeRequest({
    req,
    method,
    url,
    options,
    headers: undefined,
    native: undefined,
  }) as unknown as Request;
}

function bodyOf(req: IncomingMessage, options: ToFetchRequestOptions): BodyInit | null {
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  if (options.body === undefined) {
    if (!hasRequestBody(req)) return null;
    if (declaresTooLargeBody(req, maxBodyBytes)) {
      return erroredBody(new PayloadTooLargeError(maxBodyBytes));
    }
    return limitedBodyStream(req, maxBodyBytes);
  }
  if (options.body === null || options.body instanceof ReadableStream) return options.body;
  if (options.body.byteLength === 0) return null;
  if (options.body.byteLength > maxBodyBytes) {
    return erroredBody(new PayloadTooLargeError(maxBodyBytes));
  }
  // Framework buffers are never backed by a SharedArrayBuffer, which is all the type rules out.
  return options.body as Uint8Array<ArrayBuffer>;
}

/**
 * A body whose first read fails with `error`: how an adapter whose framework refused the
 * body (Hapi's own size check) lets the core give its usual answer, e.g. a
 * {@link PayloadTooLargeError} for `413 {"error":"payload too large"}`.
 */
export function erroredBody(error: Error): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.error(error);
    },
  });
}
