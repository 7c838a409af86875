import { type FileHandle, open } from 'node:fs/promises';
import { detectFormat } from './detect.js';
import type { ReportFormat } from './types.js';

/** How much of a file {@link sniffFormat} needs to see. */
export const SNIFF_BYTES = 4096;

/**
 * Recognises a report's format from its first bytes, so that finding reports reads no whole
 * file: XML by its root element, a Go profile by its `mode:` line and lcov by its first entry,
 * as {@link detectFormat} does; JSON by its first key (coverage.py writes `meta` first,
 * Istanbul `total` in a summary, else a file's entry with `path`, `statementMap`, `data` or, istanbul 0.x's (solidity-coverage),
 * `l`).
 *
 * @param head - the file's first {@link SNIFF_BYTES} bytes, or the whole file if shorter
 * @param whole - true when `head` is the whole file (then JSON is parsed and checked in full)
 */
export function sniffFormat(head: string, whole: boolean): ReportFormat | undefined {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (whole || !text.startsWith('{')) return detectFormat(text);
  if (/^\{\s*"meta"\s*:\s*\{/.test(text)) return 'coverage-py';
  if (/^\{\s*"total"\s*:\s*\{\s*"lines"\s*:/.test(text)) return 'istanbul';
  if (/^\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\{\s*"(?:path|statementMap|data|l)"\s*:/.test(text))
    return 'istanbul';
  return undefined;
}

/**
 * Sniffs the file at `path` ({@link sniffFormat}): undefined when it is no regular file or
 * cannot be read, else its format, undefined when it is no report covgate knows.
 */
export async function sniffFile(path: string): Promise<{ format?: ReportFormat } | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    if (!(await handle.stat()).isFile()) return undefined;
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    const format = sniffFormat(
      buffer.subarray(0, bytesRead).toString('utf8'),
      bytesRead < SNIFF_BYTES,
    );
    return format === undefined ? {} : { format };
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
