import { gzipSync } from 'node:zlib';
import type { ExecutionInput } from '@covgate/client';

/** A body longer than this (64 KiB, the JSON limit of other routes) is sent gzip-compressed. */
export const GZIP_ABOVE_BYTES = 64 * 1024;

/**
 * What a service takes of an ingest by default: 4 MiB on the wire (its `INGEST_MAX_BODY_MIB`,
 * 1-16), 16 MiB of JSON once inflated. A service set lower answers `413`, and the run is sent
 * again without line data (see {@link withoutLines}).
 */
export const INGEST_LIMITS = { wireBytes: 4 * 1024 * 1024, inflatedBytes: 16 * 1024 * 1024 };

/** A run's body as it will be sent, and what was left out to make it fit. */
export interface FittedBody {
  body: ExecutionInput;
  /** Whether the body goes gzip-compressed. */
  gzip: boolean;
  /** Why the files' line data was left out; null when it is sent (or there was none). */
  linesLeftOut: string | null;
}

/**
 * The body to send: plain JSON when short, else gzip-compressed; when even compressed it
 * passes the service's limits and its files carry line data, the same body without it (the
 * files' counts are still sent, so the run is recorded as before line data existed).
 */
export function fitBody(body: ExecutionInput): FittedBody {
  const json = JSON.stringify(body);
  if (json.length <= GZIP_ABOVE_BYTES) return { body, gzip: false, linesLeftOut: null };
  if (!hasLineData(body)) return { body, gzip: true, linesLeftOut: null };
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
  let tooLarge: string | null = null;
  if (Buffer.byteLength(json) > INGEST_LIMITS.inflatedBytes) {
    tooLarge = `${mib(Buffer.byteLength(json))} of JSON, over the service's 16 MiB`;
  } else {
    const wire = gzipSync(json).byteLength;
    if (wire > INGEST_LIMITS.wireBytes)
      tooLarge = `${mib(wire)} gzip-compressed, over the service's 4 MiB`;
  }
  if (tooLarge === null) return { body, gzip: true, linesLeftOut: null };
  return { body: withoutLines(body), gzip: true, linesLeftOut: `the run with it is ${tooLarge}` };
}

/** Whether any file of the body carries line data. */
export function hasLineData(body: ExecutionInput): boolean {
  return body.files?.some((file) => file.lines != null) ?? false;
}

/** The body with its files' counts only: no `lines`, no `patch_lines`. */
export function withoutLines(body: ExecutionInput): ExecutionInput {
  const files = body.files?.map(({ lines: _lines, patch_lines: _patch, ...counts }) => counts);
  return { ...body, files };
}
