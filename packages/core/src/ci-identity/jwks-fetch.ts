/**
 * The port through which covgate fetches an issuer's JSON Web Key Set: a `fetch` the embedder
 * provides (the reference server's reaches only the addresses its code-host policy allows).
 */
export type JwksFetch = (
  url: string,
  init: { method: 'GET'; headers: Headers; redirect: 'manual'; signal: AbortSignal },
) => Promise<Response>;

/** Bounds on fetching a key set. */
export interface JwksFetchBounds {
  /** Largest body accepted, in bytes (a key set is a few KiB). */
  maxBytes: number;
  /** After a failed fetch, further fetches of that URL fail at once for this long. */
  failureBackoffMs: number;
  /** Milliseconds since the epoch (injected in tests). */
  now: () => number;
}

/** A key-set fetch that failed or was refused: the message says why, never the body. */
export class JwksFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JwksFetchError';
  }
}

function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(new JwksFetchError('key set fetch timed out'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

async function readBounded(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new JwksFetchError(`key set larger than ${maxBytes} bytes`);
  }
  const reader = response.body?.getReader();
  if (reader === undefined) return new Uint8Array();
  const aborted = whenAborted(signal);
  aborted.catch(() => {});
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      // A server that drips its body is cut off by the same deadline as one that never answers.
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw new JwksFetchError(`key set larger than ${maxBytes} bytes`);
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** An error's message and, for fetch's `fetch failed`, its cause's (the address refusal). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
}

/**
 * Wraps `port` for jose's remote key set: a body over `maxBytes` (declared or streamed), a
 * status other than 200 or a body that does not arrive before jose's deadline fails the
 * fetch, and after any failure the next fetches fail at once until `failureBackoffMs` has
 * passed, so tokens naming unknown keys cannot make covgate hammer an issuer that is down.
 */
export function boundedJwksFetch(port: JwksFetch, bounds: JwksFetchBounds): JwksFetch {
  let failedAt: number | null = null;
  return async (url, init) => {
    if (failedAt !== null && bounds.now() - failedAt < bounds.failureBackoffMs) {
      throw new JwksFetchError('key set fetch backing off after a failure');
    }
    try {
      const response = await Promise.race([port(url, init), whenAborted(init.signal)]);
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => {});
        throw new JwksFetchError(`key set answered HTTP ${response.status}`);
      }
      const body = await readBounded(response, bounds.maxBytes, init.signal);
      failedAt = null;
      return new Response(body.buffer as ArrayBuffer, {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    } catch (error) {
      failedAt = bounds.now();
      if (init.signal.aborted) throw new JwksFetchError('key set fetch timed out');
      if (error instanceof JwksFetchError) throw error;
      throw new JwksFetchError(`key set fetch failed: ${describe(error)}`);
    }
  };
}
