import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { ResponseObject, ResponseToolkit } from '@hapi/hapi';

/** How {@link toHapiResponse} follows the life of the body stream. */
export interface BodyStreamWatch {
  /** Fires when the client went away: the body stream is then destroyed (and cancelled). */
  signal: AbortSignal;
  /** Told when the body stream fails midway (Hapi then cuts the connection). */
  onError: (error: unknown) => void;
}

/**
 * A Hapi response carrying a Fetch `Response`: status, headers exactly as given (Hapi adds
 * no charset), each `Set-Cookie` as its own header (after any cookie Hapi itself sets), and
 * the body as a stream, which Hapi writes with backpressure.
 */
export function toHapiResponse(
  h: ResponseToolkit,
  response: Response,
  watch: BodyStreamWatch,
): ResponseObject {
  let source: Readable | undefined;
  if (response.body !== null) {
    const stream = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
    stream.on('error', watch.onError);
    // Hapi stops writing when the client leaves but does not end the source stream.
    watch.signal.addEventListener('abort', () => stream.destroy(), { once: true });
    source = stream;
  }
  const reply = h.response(source).code(response.status);
  reply.charset();
  for (const [name, value] of response.headers) {
    if (name !== 'set-cookie') reply.header(name, value);
  }
  for (const cookie of response.headers.getSetCookie()) {
    reply.header('set-cookie', cookie, { append: true });
  }
  return reply;
}
