/** Request headers: a Fetch `Headers`, or a plain record such as Node's `IncomingHttpHeaders`. */
export type HeadersInput =
  | Headers
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Reads one header by name, case-insensitively. From a plain record, every value under any
 * spelling of the name is joined with `, `, exactly as `Headers#get` combines repeated headers,
 * so both kinds of input give the same answer (a repeated signature header never verifies).
 */
export function lookupHeader(headers: HeadersInput, name: string): string | undefined {
  if (isFetchHeaders(headers)) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  const values = Object.keys(headers)
    .filter((key) => key.toLowerCase() === wanted)
    .flatMap((key) => headers[key] ?? []);
  return values.length > 0 ? values.join(', ') : undefined;
}

// Duck-typed so that any Fetch-style Headers (undici, polyfills) qualifies; a plain record's
// values are strings or arrays, never functions.
function isFetchHeaders(headers: HeadersInput): headers is Headers {
  return typeof (headers as { get?: unknown }).get === 'function';
}
