import { type ServerResponse, validateHeaderName, validateHeaderValue } from 'node:http';
import { responseTextOf } from './response-text.js';

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
  const text = responseTextOf(response);
  if (text !== undefined && !response.bodyUsed) {
    res.end(text);
    return;
  }
  if (response.body === null) {
    res.end();
    return;
  }
  await pipeBody(response.body, res);
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
