import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';

/** Status and API error message of each kind of request Node's parser refuses. */
function answerFor(code: string | undefined): { status: number; reason: string; error: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      reason: 'Request Header Fields Too Large',
      error: 'request header fields too large',
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ETIMEDOUT') {
    return { status: 408, reason: 'Request Timeout', error: 'request timeout' };
  }
  return { status: 400, reason: 'Bad Request', error: 'malformed request' };
}

/**
 * Answers requests that Node's HTTP parser refuses before covgate sees them (bad syntax,
 * headers over the size limit, a request not received in time) in the API's shape: a JSON
 * `{"error": ...}` with a fresh `X-Request-ID`, and an access-log line like every other
 * request's, instead of Node's bare `400` or `431`.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // A response already under way on this socket cannot be followed by another.
    const responding = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || responding?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, reason, error: message } = answerFor(error.code);
    const requestId = randomUUID();
    const body = JSON.stringify({ error: message });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-ID: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
    logger.info(
      {
        requestId,
        status,
        remoteAddress: socket.remoteAddress ?? 'unknown',
        parserError: error.code ?? 'unknown',
      },
      'request',
    );
  });
}
