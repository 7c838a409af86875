/** A run of consecutive lines: `start`, `start + 1`, ..., `start + count - 1`. */
export interface LineRange {
  start: number;
  count: number;
}

/** The lines a diff adds or changes, by each file's path after the change. */
export type ChangedLines = Map<string, LineRange[]>;

const HUNK = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/;

/**
 * Reads the output of `git diff --unified=0` line by line and collects, per file, the lines of
 * the new side that the diff adds or changes. With no context lines, a hunk header
 * `@@ -a,b +c,d @@` names them all (`c` to `c + d - 1`), so the hunks' content is skipped.
 *
 * - a file is named by its `+++ b/<path>` line (C-quoted by git when it holds special
 *   characters; a trailing tab git adds after a name with a space is dropped);
 * - a renamed file is named by its new path and counts only the lines changed in it;
 * - a deleted file (`+++ /dev/null`), a binary file (no hunks) and a change of mode only add
 *   no line.
 */
export class DiffLineReader {
  private readonly files: ChangedLines = new Map();
  private current: LineRange[] | undefined;
  /** Between `diff --git` and the first hunk, where `---`/`+++` name the file. */
  private inHeader = false;

  /** Reads one line of the diff (without its line break). */
  line(text: string): void {
    if (text.startsWith('diff ')) {
      this.inHeader = true;
      this.current = undefined;
      return;
    }
    if (text.startsWith('@@')) {
      this.inHeader = false;
      const match = HUNK.exec(text);
      if (!match || !this.current) return;
      const count = match[2] === undefined ? 1 : Number(match[2]);
      if (count > 0) this.current.push({ start: Number(match[1]), count });
      return;
    }
    // Content lines of a hunk may start with `+++` too: only the header names a file.
    if (!this.inHeader || !text.startsWith('+++ ')) return;
    const path = newPath(text.slice(4));
    if (path === undefined) return;
    let ranges = this.files.get(path);
    if (!ranges) {
      ranges = [];
      this.files.set(path, ranges);
    }
    this.current = ranges;
  }

  /** The files with at least one added or changed line. */
  result(): ChangedLines {
    for (const [path, ranges] of this.files) if (ranges.length === 0) this.files.delete(path);
    return this.files;
  }
}

/** Reads a whole `git diff --unified=0` output; see {@link DiffLineReader}. */
export function changedLines(diff: string): ChangedLines {
  const reader = new DiffLineReader();
  for (const line of diff.split('\n')) reader.line(line.replace(/\r$/, ''));
  return reader.result();
}

/** The path of a `+++` line without its `b/` prefix; undefined for `/dev/null`. */
function newPath(field: string): string | undefined {
  const name = field.startsWith('"') ? unquoteC(field) : field.replace(/\t$/, '');
  if (!name.startsWith('b/')) return undefined;
  return name.slice(2);
}

const ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 34,
  '\\': 92,
};

/**
 * A path git quoted (`"b/tab\t\303\251.txt"`): C escapes, and octal bytes for everything
 * outside printable ASCII (with `core.quotePath`, git's default), decoded as UTF-8.
 */
export function unquoteC(quoted: string): string {
  const end = quoted.lastIndexOf('"');
  const body = quoted.slice(1, end > 0 ? end : undefined);
  const parts: Buffer[] = [];
  let plain = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== '\\') continue;
    parts.push(Buffer.from(body.slice(plain, i), 'utf8'));
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4));
    if (octal) {
      parts.push(Buffer.of(Number.parseInt(octal[0], 8)));
      i += 3;
    } else {
      const next = body[i + 1] ?? '';
      parts.push(Buffer.of(ESCAPES[next] ?? next.charCodeAt(0)));
      i += 1;
    }
    plain = i + 1;
  }
  parts.push(Buffer.from(body.slice(plain), 'utf8'));
  return Buffer.concat(parts).toString('utf8');
}
