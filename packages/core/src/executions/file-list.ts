import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { RunLinesText } from './run-lines.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * Most entries a run's `files` list may have. A client with more files rolls the deepest
 * folders up into one entry each (a path ending in `/`) until the list fits; covgate's CLI
 * does.
 */
export const MAX_FILE_ENTRIES = 50_000;

/** Longest path of a `files` entry, in characters. */
export const MAX_FILE_PATH_LENGTH = 1024;

/** One entry of a run's per-file list: a file, or a rolled-up folder when `path` ends in `/`. */
export interface FileEntry {
  /** Repository-relative path, `/`-separated. */
  path: string;
  /** Lines that ran. */
  covered: number;
  /** Lines that can run. */
  coverable: number;
  /**
   * Lines of the patch (the lines the change added or changed) in this file or folder that
   * ran; present, with {@link patchCoverable}, only when the run sent per-file patch counts.
   */
  patchCovered?: number;
  /** Coverable lines of the patch in this file or folder; at most `coverable`. */
  patchCoverable?: number;
  /** Branches taken at least once; present, with {@link branchesTotal}, when the run sent them. */
  branchesCovered?: number;
  /** Branches the report lists for this file or folder. */
  branchesTotal?: number;
}

/** Code-unit order of paths, the same in every locale and store. */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * The first path that appears twice in a list sorted by {@link byPath}, or null: a list is a
 * set of paths, so a repeated path is a mistake of the client.
 */
export function repeatedPath(sorted: readonly FileEntry[]): string | null {
  for (let index = 1; index < sorted.length; index += 1) {
    if (sorted[index]!.path === sorted[index - 1]!.path) return sorted[index]!.path;
  }
  return null;
}

/**
 * The list as compact JSON rows, `[[path, covered, coverable], ...]`, a row of five
 * (`..., patchCovered, patchCoverable]`) for an entry with patch counts, of seven
 * (`..., patchCovered | null, patchCoverable | null, branchesCovered, branchesTotal]`) for an
 * entry with branch counts: what is stored and hashed, so a list without branch counts keeps
 * the rows (and the digest) it had before branches existed.
 */
function rowsText(files: readonly FileEntry[]): string {
  return JSON.stringify(files.map(row));
}

function row(file: FileEntry): StoredRow {
  if (file.branchesTotal !== undefined) {
    return [
      file.path,
      file.covered,
      file.coverable,
      file.patchCovered ?? null,
      file.patchCoverable ?? null,
      file.branchesCovered as number,
      file.branchesTotal,
    ];
  }
  return file.patchCoverable === undefined
    ? [file.path, file.covered, file.coverable]
    : [file.path, file.covered, file.coverable, file.patchCovered as number, file.patchCoverable];
}

/** A sorted list as the text that is hashed and stored: made once per ingest. */
export interface FileListText {
  readonly text: string;
}

/** The JSON rows of a sorted list, to give {@link fileListDigest} and {@link encodeFileList}. */
export function fileListText(sorted: readonly FileEntry[]): FileListText {
  return { text: rowsText(sorted) };
}

/**
 * Hex SHA-256 of a sorted list and of its entries' line data when any sent some: the part of
 * the idempotency digest that stands for the files, so a retry that sends the same files in
 * another order is the same request. A list without line data keeps the digest it had before
 * line data existed.
 */
export function fileListDigest(
  list: FileListText | readonly FileEntry[],
  lines: RunLinesText | null = null,
): string {
  const text = 'text' in list ? list.text : rowsText(list as readonly FileEntry[]);
  const hash = createHash('sha256').update(text);
  for (const chunk of lines?.chunks ?? []) hash.update('\n').update(chunk.text);
  return hash.digest('hex');
}

/**
 * The stored form of a sorted list: gzip (level 4) of its JSON rows. A 50 000-file list of
 * typical paths is about 3.5 MB of JSON and an eighth of it compressed (bench/ingest-files.mjs
 * measures it); the compression runs on libuv's thread pool, not on the event loop.
 */
export async function encodeFileList(list: FileListText): Promise<Uint8Array> {
  return new Uint8Array(await gzipAsync(list.text, { level: GZIP_LEVEL }));
}

/** Level 4: a third of level 6's time on file lists, for a few percent more bytes. */
const GZIP_LEVEL = 4;

/** The list {@link encodeFileList} stored. */
export async function decodeFileList(stored: Uint8Array): Promise<FileEntry[]> {
  const rows = JSON.parse((await gunzipAsync(stored)).toString('utf8')) as StoredRow[];
  return rows.map(entryOf);
}

function entryOf([
  path,
  covered,
  coverable,
  patchCovered,
  patchCoverable,
  branchesCovered,
  branchesTotal,
]: StoredRow): FileEntry {
  const entry: FileEntry = { path, covered, coverable };
  if (patchCoverable !== undefined && patchCoverable !== null) {
    entry.patchCovered = patchCovered as number;
    entry.patchCoverable = patchCoverable;
  }
  if (branchesTotal !== undefined) {
    entry.branchesCovered = branchesCovered as number;
    entry.branchesTotal = branchesTotal;
  }
  return entry;
}

/** A stored row: three fields, five with the entry's patch counts, seven with its branches. */
type StoredRow = [string, number, number, (number | null)?, (number | null)?, number?, number?];
