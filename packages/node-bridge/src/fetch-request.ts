import type { IncomingMessage } from 'node:http';
import { DEFAULT_MAX_BODY_BYTES } from './body-limit.js';
import { declaresTooLargeBody, hasRequestBody, limitedBodyStream } from './limited-body-stream.js';
import { PayloadTooLargeError } from './payload-too-large-error.js';
import { requestHeadersOf } from './request-headers.js';
import { requestOriginOf } from './request-origin.js';
import { pathAndQueryOf } from './request-target.js';
import { isFetchMethod, UnsupportedMethodError } from './unsupported-method-error.js';

/** Options of {@link toFetchRequest}. */
export interface ToFetchRequestOptions {
  /** Path and query as covgate sees them (mount prefix removed). Default: `req.url`. */
  url?: string;
  /**
   * Origin of the request URL, e.g. `https://ci.example.com`. Default: from the socket
   * (TLS or not) and a well-formed `Host` header, else `http://localhost`.
   */
  origin?: string;
  /** Body limit in bytes. Default {@link DEFAULT_MAX_BODY_BYTES} (1 MiB). */
  maxBodyBytes?: number;
  /**
   * The body when a framework already read it: the exact bytes received (never a
   * re-serialisation), a stream to read instead (such as {@link erroredBody}), or `null`
   * for no body. Default: streamed from `req`.
   */
  body?: Uint8Array | ReadableStream<Uint8Array> | null;
  /** Aborts the request, typically {@link clientDisconnectSignal}. */
  signal?: AbortSignal;
}

/**
 * Builds the Fetch `Request` covgate's core answers from a Node request: method, every
 * header, and the body as a lazily read, size-limited stream (or the given bytes).
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
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const origin = options.origin ?? requestOriginOf(req);
  const url = new URL(`${origin}${pathAndQueryOf(options.url ?? req.url ?? '/')}`);
  const headers = requestHeadersOf(req);
  const body = method === 'GET' || method === 'HEAD' ? null : bodyOf(req, options, maxBodyBytes);
  if (options.body instanceof Uint8Array && body !== null) {
    // The framework may have decoded the transfer; the bytes given are what covgate gets.
    headers.delete('transfer-encoding');
    headers.set('content-length', String(options.body.byteLength));
  }
  const init: RequestInit & { duplex?: 'half' } = { method, headers, body };
  if (body instanceof ReadableStream) init.duplex = 'half';
  if (options.signal !== undefined) init.signal = options.signal;
  return new Request(url, init);
}

function bodyOf(
  req: IncomingMessage,
  options: ToFetchRequestOptions,
  maxBodyBytes: number,
): BodyInit | null {
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
