import { createGunzip } from 'node:zlib';
import type { InflationClaim } from './inflation-budget.js';

/** Bytes of inflated output zlib hands over at a time: each is counted before the next. */
export const INFLATE_CHUNK_BYTES = 64 * 1024;

/** Why an inflation stopped before the end of its body. */
export type InflationRefusal =
  /** More than the request's own limit. */
  | 'too-large'
  /** The budget shared by inflations in progress is used up. */
  | 'over-budget'
  /** Not a gzip stream, or a damaged one. */
  | 'malformed';

/** How an inflation ended: the whole body, or why it stopped. */
export type InflationResult =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; refusal: InflationRefusal };

/**
 * Inflates a gzip body chunk by chunk ({@link INFLATE_CHUNK_BYTES} at most each), taking every
 * chunk from `claim` before keeping it, and stops (the zlib stream destroyed, no more output
 * made) as soon as the output passes `maxBytes` or the claim is refused. What it took stays
 * held until the caller releases the claim.
 */
export function inflateGzip(
  compressed: Uint8Array,
  maxBytes: number,
  claim: InflationClaim,
): Promise<InflationResult> {
  return new Promise((resolve) => {
    const gunzip = createGunzip({ chunkSize: INFLATE_CHUNK_BYTES });
    const chunks: Buffer[] = [];
    let size = 0;
    // Destroying the stream ends its events: no chunk, error or end comes after a stop, so
    // each inflation settles once and takes nothing more from the claim.
    const stop = (refusal: InflationRefusal): void => {
      gunzip.destroy();
      resolve({ ok: false, refusal });
    };
    gunzip.on('data', (chunk: Buffer) => {
      if (size + chunk.byteLength > maxBytes) return stop('too-large');
      if (!claim.take(chunk.byteLength)) return stop('over-budget');
      size += chunk.byteLength;
      chunks.push(chunk);
    });
    gunzip.on('error', () => stop('malformed'));
    gunzip.on('end', () => resolve({ ok: true, bytes: Buffer.concat(chunks, size) }));
    gunzip.end(compressed);
  });
}
