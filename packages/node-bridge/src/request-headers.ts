import type { IncomingMessage } from 'node:http';

/**
 * Every request header as received, duplicates included: repeated headers are joined the
 * Fetch way (`, `, and `; ` for `Cookie`), rather than Node's `req.headers`, which keeps only
 * the first `Authorization` or `Content-Type` and would hide an ambiguous request.
 * HTTP/2 pseudo-headers (`:path`...) are left out.
 */
export function requestHeadersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index]!;
    if (name.startsWith(':')) continue;
    headers.append(name, raw[index + 1]!);
  }
  return headers;
}
