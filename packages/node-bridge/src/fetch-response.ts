import type { ServerResponse } from 'node:http';

/**
 * Writes a Fetch `Response` to a Node response: status, headers (each `Set-Cookie` as its
 * own header line, never joined), and the body streamed chunk by chunk, waiting for the
 * socket to drain (backpressure).
 *
 * Resolves once the response is written, or when the client went away (the body stream is
 * then cancelled, which is not an error). Rejects when the body stream itself fails; the
 * connection is then destroyed, since the status line is already sent.
 */
export async function writeFetchResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  if (response.statusText !== '') res.statusMessage = response.statusText;
  for (const [name, value] of response.headers) {
    if (name !== 'set-cookie') res.setHeader(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
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
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
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
