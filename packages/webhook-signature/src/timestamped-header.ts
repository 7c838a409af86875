import { trimWhitespace } from './header-value.js';
import { failure, type VerificationFailure } from './verification-result.js';

/**
 * Longest timestamped signature header read, in characters. Real headers hold a timestamp and
 * a few 64-character signatures; a longer one is refused before it is split.
 */
export const MAX_TIMESTAMPED_HEADER_LENGTH = 8192;

/** The parts of a `t=<seconds>,v1=<hex>[,v1=<hex>...]` header that a verifier needs. */
export interface TimestampedHeader {
  /** The `t` value exactly as written (also the signed prefix). */
  timestampText: string;
  /** The `t` value in Unix seconds. */
  timestamp: number;
  /** Every `v1` value, in order; unchecked (a malformed one simply never matches). */
  signatures: string[];
}

// No sign, no leading zero, no fraction: the text is the one canonical spelling of the number,
// so the signed bytes and the parsed number cannot disagree.
const TIMESTAMP = /^(0|[1-9][0-9]*)$/;

/**
 * Splits a timestamped header. Elements are comma-separated, surrounding spaces are ignored,
 * unknown schemes (`v0=`) are skipped. Refused: more than one `t`, no `t`, a `t` that is not a
 * whole number of seconds, an over-long header, and a header without any `v1`.
 */
export function parseTimestampedHeader(header: string): TimestampedHeader | VerificationFailure {
  if (header.length > MAX_TIMESTAMPED_HEADER_LENGTH) return failure('malformed_header');
  const timestamps: string[] = [];
  const signatures: string[] = [];
  for (const element of header.split(',')) {
    const [key, value = ''] = splitOnce(trimWhitespace(element), '=');
    if (key === 't') timestamps.push(value);
    if (key === 'v1') signatures.push(value);
  }
  const [timestampText] = timestamps;
  if (timestamps.length !== 1 || timestampText === undefined || !TIMESTAMP.test(timestampText)) {
    return failure('malformed_header');
  }
  const timestamp = Number(timestampText);
  if (!Number.isSafeInteger(timestamp)) return failure('malformed_header');
  if (signatures.length === 0) return failure('no_signatures');
  return { timestampText, timestamp, signatures };
}

function splitOnce(text: string, separator: string): [string, string?] {
  const at = text.indexOf(separator);
  return at < 0 ? [text] : [text.slice(0, at), text.slice(at + separator.length)];
}
