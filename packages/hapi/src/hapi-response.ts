import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { responseTextOf } from '@covgate/node-bridge';
import type { ResponseObject, ResponseToolkit } from '@hapi/hapi';

/**
 * A Hapi response carrying a Fetch `Response`: status, headers exactly as given (Hapi adds
 * no charset), each `Set-Cookie` as its own header (after any cookie Hapi itself sets), and
 * the body as a stream, which Hapi writes with backpressure and destroys (cancelling the
 * Fetch body) when the client goes away.
 *
 * @param onStreamError - told when the body stream fails midway (Hapi then cuts the
 * connection).
 */
export function toHapiResponse(
  h: ResponseToolkit,
  response: Response,
  onStreamError: (error: unknown) => void,
): ResponseObject {
  let source: Readable | string | undefined = responseTextOf(response);
  if (source === undefined && response.body !== null) {
    const stream = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
    stream.on('error', onStreamError);
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
