import { ApiError, ERRORS } from './api-error.js';
import { exceedsJsonDepth } from './json-depth.js';

/** Largest accepted request body: 1 MiB (the webhook receivers, and the Node bridge). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Largest accepted JSON body on every route but the webhook receivers: 64 KiB. */
export const MAX_JSON_BODY_BYTES = 64 * 1024;

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
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
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

/**
 * Reads a JSON body of at most {@link MAX_JSON_BODY_BYTES} (`413`). Returns `undefined` for an
 * empty body (routes decide whether a body is required). A non-empty body must be
 * `application/json` (`415`), nest at most `MAX_JSON_DEPTH` deep (`400`, checked on the bytes
 * before parsing) and parse (`400`).
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const bytes = await readRawBody(request, MAX_JSON_BODY_BYTES);
  if (bytes.byteLength === 0) return undefined;
  if (!isJsonContentType(request.headers.get('content-type'))) {
    throw new ApiError(415, ERRORS.unsupportedMediaType);
  }
  if (exceedsJsonDepth(bytes)) throw new ApiError(400, ERRORS.malformedRequest);
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new ApiError(400, ERRORS.malformedRequest);
  }
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
