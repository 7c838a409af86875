import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import type { EncodedLineData } from './line-data.js';

const deflateAsync = promisify(deflateRaw);
const inflateAsync = promisify(inflateRaw);

/** One file's line data in a run, as the ingest took it. */
export interface FileLines {
  /** Repository-relative path, as in the run's `files` list. */
  path: string;
  /** The file's coverable and covered lines, in the sent (and stored) encoding. */
  lines: EncodedLineData;
  /** The patch's changed lines in the file as `gap, length` ranges; null when not sent. */
  patch: number[] | null;
}

/** A run's line data as the JSON texts of its chunks: made once per ingest. */
export interface RunLinesText {
  readonly chunks: readonly { readonly first: string; readonly text: string }[];
}

/** A stored row: `[path, coverable, covered]`, with the patch's ranges as a fourth when sent. */
type StoredRow = [string, number[], number[], number[]?];

/** Marks the stored form (and its version) at the start of the bytes. */
const MAGIC = Buffer.from('CGL1', 'latin1');

/**
 * JSON text per chunk: chunks of about this many characters, each compressed on its own, so
 * that one file's lines are read by inflating one chunk while compression loses little
 * (deflate's window is 32 KiB).
 */
const CHUNK_CHARACTERS = 64 * 1024;

/**
 * zlib's level 1: on 50 000 files of 2 million lines it stores 1.16 times the gzip (level 6)
 * of the same JSON, level 4 1.04 and level 6 0.98, while level 6 took about nine times and
 * level 4 twice level 1's time: the ingest's budget goes further than the bytes (the goal is
 * at most 1.5 times the gzip).
 */
const LEVEL = 1;

/** The chunks of a list of files' line data sorted by path (see {@link encodeRunLines}). */
export function runLinesText(sorted: readonly FileLines[]): RunLinesText {
  const chunks: { first: string; text: string }[] = [];
  let rows: StoredRow[] = [];
  // An estimate of the rows' JSON length (a number and its comma take about three
  // characters): one JSON.stringify per chunk, not per row.
  let size = 0;
  for (const file of sorted) {
    const { coverable, covered } = file.lines;
    rows.push(
      file.patch === null
        ? [file.path, coverable, covered]
        : [file.path, coverable, covered, file.patch],
    );
    size +=
      file.path.length + 3 * (coverable.length + covered.length + (file.patch?.length ?? 0)) + 12;
    if (size >= CHUNK_CHARACTERS) {
      chunks.push({ first: rows[0]![0], text: JSON.stringify(rows) });
      rows = [];
      size = 0;
    }
  }
  if (rows.length > 0) chunks.push({ first: rows[0]![0], text: JSON.stringify(rows) });
  return { chunks };
}

/**
 * The stored form of a run's line data (docs/decisions.md, "Line data"): `CGL1`, the byte
 * length of the index (4 bytes, big-endian), the index (raw deflate of the JSON
 * `[[first path, byte length], ...]` of each chunk), then each chunk, a raw deflate of its
 * JSON rows. The chunks compress on libuv's thread pool, not on the event loop.
 */
export async function encodeRunLines(text: RunLinesText): Promise<Uint8Array> {
  const chunks = await Promise.all(
    text.chunks.map((chunk) => deflateAsync(chunk.text, { level: LEVEL })),
  );
  const index = await deflateAsync(
    JSON.stringify(text.chunks.map((chunk, at) => [chunk.first, chunks[at]!.length])),
    { level: LEVEL },
  );
  const length = Buffer.alloc(4);
  length.writeUInt32BE(index.length);
  return new Uint8Array(Buffer.concat([MAGIC, length, index, ...chunks]));
}

/** Where each chunk of stored line data starts and ends, with its first path. */
async function chunkIndex(
  stored: Uint8Array,
): Promise<{ bytes: Buffer; chunks: { first: string; from: number; to: number }[] }> {
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  if (!bytes.subarray(0, 4).equals(MAGIC)) throw new Error('not stored line data');
  const indexLength = bytes.readUInt32BE(4);
  let from = 8 + indexLength;
  const entries = JSON.parse((await inflateAsync(bytes.subarray(8, from))).toString('utf8')) as [
    string,
    number,
  ][];
  const chunks = entries.map(([first, length]) => {
    const chunk = { first, from, to: from + length };
    from += length;
    return chunk;
  });
  return { bytes, chunks };
}

async function chunkRows(bytes: Buffer, from: number, to: number): Promise<StoredRow[]> {
  return JSON.parse((await inflateAsync(bytes.subarray(from, to))).toString('utf8'));
}

function fileLinesOf([path, coverable, covered, patch]: StoredRow): FileLines {
  return { path, lines: { coverable, covered }, patch: patch ?? null };
}

/** Every file's line data {@link encodeRunLines} stored, sorted by path. */
export async function decodeRunLines(stored: Uint8Array): Promise<FileLines[]> {
  const { bytes, chunks } = await chunkIndex(stored);
  const files: FileLines[] = [];
  for (const chunk of chunks) {
    for (const row of await chunkRows(bytes, chunk.from, chunk.to)) files.push(fileLinesOf(row));
  }
  return files;
}

/**
 * One file's line data from what {@link encodeRunLines} stored, or null when the run has none
 * for `path`: inflates the one chunk that can hold it.
 */
export async function findFileLines(stored: Uint8Array, path: string): Promise<FileLines | null> {
  const { bytes, chunks } = await chunkIndex(stored);
  // The last chunk whose first path is at or before `path` (code-unit order, as sorted).
  let low = 0;
  let high = chunks.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (chunks[middle]!.first <= path) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  if (found === -1) return null;
  const chunk = chunks[found]!;
  const row = (await chunkRows(bytes, chunk.from, chunk.to)).find((entry) => entry[0] === path);
  return row === undefined ? null : fileLinesOf(row);
}
