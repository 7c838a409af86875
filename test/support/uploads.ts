import { expect } from 'vitest';

// What the adapters' body-limit tests send, and the answer covgate gives a body over its limit.

/** POSTs `parts` to `url` one chunk at a time: a chunked upload with no Content-Length. */
export function postChunked(
  url: string,
  parts: readonly (Uint8Array | string)[],
): Promise<Response> {
  const queue = [...parts];
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = queue.shift();
      if (part === undefined) controller.close();
      else controller.enqueue(typeof part === 'string' ? new TextEncoder().encode(part) : part);
    },
  });
  return fetch(url, { method: 'POST', body, duplex: 'half' } as RequestInit);
}

/** POSTs `size` zero bytes to `url` in one body with its Content-Length. */
export function postZeros(url: string, size: number): Promise<Response> {
  return fetch(url, { method: 'POST', body: new Uint8Array(size) });
}

/** `count` chunks of `size` zero bytes, for {@link postChunked}. */
export function zeroChunks(count: number, size: number): Uint8Array[] {
  return Array.from({ length: count }, () => new Uint8Array(size));
}

/** Expects covgate's own 413: `{"error":"payload too large"}`. */
export async function expectPayloadTooLarge(response: Response): Promise<void> {
  expect(response.status).toBe(413);
  expect(await response.json()).toEqual({ error: 'payload too large' });
}
