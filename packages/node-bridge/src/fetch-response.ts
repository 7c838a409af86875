import { type ServerResponse, validateHeaderName, validateHeaderValue } from 'node:http';
import { type Reply, replyOf } from '@covgate/core';

/**
 * Writes a Fetch `Response` to a Node response: status, headers (each `Set-Cookie` as its
 * own header line, never joined, added to any a host framework already set), and the body
 * streamed chunk by chunk, waiting for the socket to drain (backpressure).
 *
 * Throws before writing anything when a header is one Node cannot send. Resolves once the
 * response is written, or when the client went away (the body stream is then cancelled,
 * which is not an error). Rejects when the body stream itself fails; the connection is then
 * destroyed, since the status line is already sent.
 */
export async function writeFetchResponse(res: ServerResponse, response: Response): Promise<void> {
  const reply = replyOf(response);
  if (reply !== undefined) {
    writeReply(res, reply);
    return;
  }
  const headers = [...response.headers].filter(([name]) => name !== 'set-cookie');
  const cookies = response.headers.getSetCookie();
  // Fetch accepts a few control characters Node refuses; check everything before touching
  // `res` so that a refusal leaves it clean for an error answer.
  for (const [name, value] of headers) {
    validateHeaderName(name);
    validateHeaderValue(name, value);
  }
  for (const cookie of cookies) validateHeaderValue('set-cookie', cookie);

  res.statusCode = response.status;
  if (response.statusText !== '') res.statusMessage = response.statusText;
  for (const [name, value] of headers) res.setHeader(name, value);
  if (cookies.length > 0) res.appendHeader('set-cookie', cookies);
  if (response.body === null) {
    res.end();
    return;
  }
  await pipeBody(response.body, res);
}

/**
 * Writes a reply of covgate's core as it is, without a Fetch `Response` in between: one
 * `writeHead` with the header record and the body text. Headers a host framework set stay
 * (covgate's win on the same name), and cookies are added to the host's.
 */
function writeReply(res: ServerResponse, reply: Readonly<Reply>): void {
  const { headers, cookies, body } = reply;
  if (cookies !== undefined && cookies.length > 0) {
    for (const cookie of cookies) validateHeaderValue('set-cookie', cookie);
    res.appendHeader('set-cookie', cookies);
  }
  if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));
  try {
    res.writeHead(reply.status, headers);
  } catch (error) {
    // Leave `res` clean for the error answer: nothing of this reply may go out with it.
    for (const name in headers) res.removeHeader(name);
    if (cookies !== undefined && cookies.length > 0) res.removeHeader('set-cookie');
    throw error;
  }
  res.end(body ?? undefined);
}

async function pipeBody(body: ReadableStream<Uint8Array>, res: ServerResponse): Promise<void> {
  const reader = body.getReader();
  const stopReading = (): void => {
    reader.cancel().catch(() => {});
  };
  res.once('close', stopReading);
  try {
    // Most API bodies are one chunk: corking until the next turn of the event loop lets
    // headers, body and the end of the message leave in one write, without delaying a
    // stream's first chunk for longer than that turn.
    res.cork();
    setImmediate(() => res.uncork());
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) {
        stopReading();
        return;
      }
      if (!res.write(value)) await drainedOrClosed(res);
    }
    if (!res.destroyed) res.end();
  } catch (error) {
    res.destroy();
    throw error;
  } finally {
    res.off('close', stopReading);
  }
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const settle = (): void => {
      res.off('drain', settle);
      res.off('close', settle);
      resolve();
    };
    res.once('drain', settle);
    res.once('close', settle);
  });
}
