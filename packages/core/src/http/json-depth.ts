/** Deepest nesting of arrays and objects a JSON body may have on the API's routes. */
export const MAX_JSON_DEPTH = 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether the arrays and objects of a JSON text nest deeper than `maxDepth` (pure, one pass
 * over the bytes, no allocation, no recursion). Brackets inside strings do not count. It does
 * not validate the JSON (`JSON.parse` does that afterwards); it only keeps bodies such as a
 * mebibyte of `[` away from the parser, which would block the event loop on them.
 */
export function exceedsJsonDepth(bytes: Uint8Array, maxDepth: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      depth++;
      if (depth > maxDepth) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}
