import { failure, type VerificationFailure } from './verification-result.js';

/** A header value as frameworks hand it over: `Headers#get` gives `null` when absent. */
export type HeaderValue = string | null | undefined;

/**
 * The header value without surrounding spaces and tabs (RFC 9110 optional whitespace), or the
 * failure: `missing_header` when absent or blank, `malformed_header` when not a string at all.
 */
export function presentHeaderValue(header: HeaderValue): string | VerificationFailure {
  if (header === null || header === undefined) return failure('missing_header');
  if (typeof header !== 'string') return failure('malformed_header');
  const value = trimWhitespace(header);
  return value.length > 0 ? value : failure('missing_header');
}

/** Removes leading and trailing spaces and tabs, nothing else. */
export function trimWhitespace(text: string): string {
  return text.replace(/^[ \t]+|[ \t]+$/g, '');
}
