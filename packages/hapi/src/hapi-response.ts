import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { replyOf } from '@covgate/core';
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
  const reply = replyOf(response);
  if (reply !== undefined) {
    const answer = h.response(reply.body ?? undefined).code(reply.status);
    answer.charset();
    const { headers } = reply;
    for (const name in headers) answer.header(name, headers[name] as string);
    for (const cookie of reply.cookies ?? []) answer.header('set-cookie', cookie, { append: true });
    return answer;
  }
  let source: Readable | undefined;
  if (response.body !== null) {
    const stream = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
    stream.on('error', onStreamError);
    source = stream;
  }
  const answer = h.response(source).code(response.status);
  answer.charset();
  for (const [name, value] of response.headers) {
    if (name !== 'set-cookie') answer.header(name, value);
  }
  for (const cookie of response.headers.getSetCookie()) {
    answer.header('set-cookie', cookie, { append: true });
  }
  return answer;
}
