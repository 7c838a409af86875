import { ApiError, ERRORS } from './api-error.js';
import { inflateGzip } from './inflate-gzip.js';
import {
  createInflationBudget,
  type InflationBudget,
  type InflationClaim,
} from './inflation-budget.js';
import { exceedsJsonDepth } from './json-depth.js';

/** Largest accepted request body: 1 MiB (the webhook receivers, and the Node bridge). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Largest accepted JSON body on every route but the webhook receivers: 64 KiB. */
export const MAX_JSON_BODY_BYTES = 64 * 1024;

/** Seconds a body refused for want of inflation memory is told to wait (`Retry-After`). */
export const INFLATION_RETRY_AFTER_SECONDS = 1;

function payloadTooLarge(): ApiError {
  return new ApiError(413, ERRORS.payloadTooLarge);
}

function isPayloadTooLargeSignal(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    ((error as { status?: unknown }).status === 413 ||
      (error as { statusCode?: unknown }).statusCode === 413)
  );
}

/**
 * Reads the raw body bytes, refusing more than `maxBytes` without buffering them
 * (`413 payload too large`). An adapter may signal an over-limit body by erroring the
 * stream with an error whose `status` is 413.
 */
export async function readRawBody(
  request: Request,
  maxBytes: number = MAX_BODY_BYTES,
): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw payloadTooLarge();
  return readStream(request.body, maxBytes);
}

/** {@link readRawBody} of a stream: `413` past `maxBytes`, `400` when the stream fails. */
async function readStream(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw payloadTooLarge();
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (isPayloadTooLargeSignal(error)) throw payloadTooLarge();
    throw new ApiError(400, ERRORS.malformedRequest);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Whether a `Content-Type` value is JSON (`application/json`, parameters allowed). */
export function isJsonContentType(value: string | null): boolean {
  if (value === null) return false;
  const essence = value.split(';', 1)[0]?.trim().toLowerCase();
  return essence === 'application/json';
}

/** Size limits of a JSON body that may be gzip-compressed. */
export interface JsonBodyLimits {
  /** Bytes on the wire. */
  maxBytes: number;
  /**
   * Bytes once a `Content-Encoding: gzip` body is inflated. Without it a body with any
   * `Content-Encoding` but `identity` is `415`.
   */
  maxInflatedBytes?: number;
  /**
   * The memory shared by the gzip bodies inflating at once; past it the body is refused with
   * `503` and `Retry-After`. Default: a budget of this request's own `maxInflatedBytes`.
   */
  inflationBudget?: InflationBudget;
}

/**
 * Reads a JSON body of at most {@link MAX_JSON_BODY_BYTES} (`413`), or the route's `limits`.
 * Returns `undefined` for an empty body (routes decide whether a body is required). A
 * non-empty body must be `application/json` (`415`), nest at most `MAX_JSON_DEPTH` deep
 * (`400`, checked on the bytes before parsing) and parse (`400`). A route that allows it
 * takes a gzip body, inflated up to its limit (`413` beyond; `400` when it is not gzip) within
 * the memory shared by the bodies inflating at once (`503` with `Retry-After` beyond).
 */
export async function readJsonBody(
  request: Request,
  limits: JsonBodyLimits = { maxBytes: MAX_JSON_BODY_BYTES },
): Promise<unknown> {
  const encoding = contentEncoding(request.headers.get('content-encoding'));
  if (encoding !== 'identity' && !(encoding === 'gzip' && limits.maxInflatedBytes)) {
    throw new ApiError(415, ERRORS.unsupportedMediaType);
  }
  const wire = await readRawBody(request, limits.maxBytes);
  if (wire.byteLength === 0) return undefined;
  if (!isJsonContentType(request.headers.get('content-type'))) {
    throw new ApiError(415, ERRORS.unsupportedMediaType);
  }
  if (encoding !== 'gzip') return parseJson(wire);
  const maxInflatedBytes = limits.maxInflatedBytes ?? limits.maxBytes;
  const budget = limits.inflationBudget ?? createInflationBudget({ maxBytes: maxInflatedBytes });
  const claim = budget.claim();
  try {
    return parseJson(await inflate(wire, maxInflatedBytes, claim));
  } finally {
    claim.release();
  }
}

/** A JSON body's value: `400` past `MAX_JSON_DEPTH`, for bytes that are not UTF-8 or not JSON. */
function parseJson(bytes: Uint8Array): unknown {
  if (exceedsJsonDepth(bytes)) throw new ApiError(400, ERRORS.malformedRequest);
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new ApiError(400, ERRORS.malformedRequest);
  }
}

/** `identity` (absent too), `gzip` (or its alias `x-gzip`), or the header as sent. */
function contentEncoding(header: string | null): string {
  const value = header?.trim().toLowerCase() ?? '';
  if (value === '' || value === 'identity') return 'identity';
  return value === 'x-gzip' ? 'gzip' : value;
}

/**
 * Inflates a gzip body within `claim`: `413` past `maxBytes` of output, `503` with
 * `Retry-After` when the shared budget is used up, `400` when it is not gzip.
 */
async function inflate(
  compressed: Uint8Array,
  maxBytes: number,
  claim: InflationClaim,
): Promise<Uint8Array> {
  const result = await inflateGzip(compressed, maxBytes, claim);
  if (result.ok) return result.bytes;
  if (result.refusal === 'too-large') throw payloadTooLarge();
  if (result.refusal === 'over-budget') {
    throw new ApiError(503, ERRORS.serviceUnavailable, {
      'retry-after': String(INFLATION_RETRY_AFTER_SECONDS),
    });
  }
  throw new ApiError(400, ERRORS.malformedRequest);
}

/**
 * Reads an HTML form body (`application/x-www-form-urlencoded`, else `415`) of at most
 * {@link MAX_JSON_BODY_BYTES} (`413`); an empty body is an empty form.
 */
export async function readFormBody(request: Request): Promise<URLSearchParams> {
  const bytes = await readRawBody(request, MAX_JSON_BODY_BYTES);
  if (bytes.byteLength === 0) return new URLSearchParams();
  const essence = request.headers.get('content-type')?.split(';', 1)[0]?.trim().toLowerCase();
  if (essence !== 'application/x-www-form-urlencoded') {
    throw new ApiError(415, ERRORS.unsupportedMediaType);
  }
  try {
    return new URLSearchParams(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new ApiError(400, ERRORS.malformedRequest);
  }
}
