import { request } from 'node:http';

/** A response as `node:http` received it, raw header lines included. */
export interface RawResponse {
  status: number;
  rawHeaders: string[];
  body: Buffer;
}

/**
 * Sends a request with `node:http`, which, unlike `fetch`, can repeat a header
 * (`{ 'x-tag': ['a', 'b'] }`), set any `Host` and use methods such as `TRACE`.
 */
export function httpRequest(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string | string[]>;
    body?: Uint8Array | string;
  } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Values of one header in a raw header list, case-insensitively, in order. */
export function headerLines(rawHeaders: string[], name: string): string[] {
  const lines: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if (rawHeaders[index]!.toLowerCase() === name) lines.push(rawHeaders[index + 1]!);
  }
  return lines;
}

/**
 * Fetches `url` and reads its whole body: `complete`, or `cut` when the connection broke before
 * the body ended (a bridge's answer to a response body that fails midway).
 */
export function fetchToEnd(url: string): Promise<'complete' | 'cut'> {
  return fetch(url)
    .then((response) => response.text())
    .then(
      () => 'complete' as const,
      () => 'cut' as const,
    );
}
