import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { adapterFailureResponse } from '@covgate/core';
import { type NodeRequestListener, writeFetchResponse } from '@covgate/node-bridge';
import type { Logger } from 'pino';

/** Status and API error message of each kind of request Node's parser refuses. */
function answerFor(code: string | undefined): { status: number; error: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, error: 'request header fields too large' };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ETIMEDOUT') {
    return { status: 408, error: 'request timeout' };
  }
  return { status: 400, error: 'malformed request' };
}

/** The access-log fields of a request answered (or dropped) outside the API. */
interface Refusal {
  requestId: string;
  /** `0` when no answer could be sent. */
  status: number;
  remoteAddress: string;
  method?: string;
  /** Node's parser error code, for requests it could not parse. */
  parserError?: string;
  /** Why a request that parsed was refused: `missing_host`, `connect`. */
  refused?: string;
}

function logRefusal(logger: Logger, refusal: Refusal): void {
  logger.info(refusal, 'request');
}

/** A whole HTTP/1.1 answer for a raw socket, `Connection: close` included. */
async function rawAnswer(response: Response): Promise<string> {
  const body = await response.text();
  let head = `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}\r\n`;
  for (const [name, value] of response.headers) head += `${name}: ${value}\r\n`;
  head += `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
  return head + body;
}

/** Writes `response` on the socket and closes it (unless the client has gone meanwhile). */
function endWith(socket: Socket, response: Response): void {
  void rawAnswer(response).then((answer) => {
    if (!socket.destroyed) socket.end(answer);
  });
}

function jsonError(status: number, error: string): Response {
  return new Response(JSON.stringify({ error }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': randomUUID() },
  });
}

/**
 * Answers, in the API's shape (a JSON `{"error": ...}` with a fresh `X-Request-ID` and
 * `Connection: close`) and with one access-log line each, the requests Node would otherwise
 * answer bare or drop before covgate sees them:
 *
 * - requests its parser refuses (bad syntax `400`, headers over the limit `431`, a request
 *   not received within the server's time-outs `408`); a socket that can no longer be
 *   written to is closed and the request logged with status `0`, a connection reset before a
 *   request is not logged;
 * - `CONNECT`, which Node closes silently when nobody listens for it: `405` with `Allow`.
 *
 * HTTP/1.1 requests without `Host` are answered by {@link refuseWithoutHost}, once the server
 * was created with `requireHostHeader: false` (else Node answers a bare `400` itself).
 */
export function answerRefusedRequests(server: Server, logger: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const remoteAddress = socket.remoteAddress ?? 'unknown';
    const parserError = error.code ?? 'unknown';
    // A response already under way on this socket cannot be followed by another.
    const responding = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || responding?.headersSent) {
      socket.destroy();
      logRefusal(logger, { requestId, status: 0, remoteAddress, parserError });
      return;
    }
    const { status, error: message } = answerFor(error.code);
    const response = jsonError(status, message);
    response.headers.set('x-request-id', requestId);
    endWith(socket, response);
    logRefusal(logger, { requestId, status, remoteAddress, parserError });
  });
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    const response = adapterFailureResponse('method-not-allowed');
    const requestId = response.headers.get('x-request-id') ?? randomUUID();
    socket.on('error', () => socket.destroy());
    endWith(socket, response);
    logRefusal(logger, {
      requestId,
      status: response.status,
      remoteAddress: socket.remoteAddress ?? 'unknown',
      method: request.method ?? 'CONNECT',
      refused: 'connect',
    });
  });
}

/**
 * Answers an HTTP/1.1 request without `Host` (RFC 9112 requires one) with
 * `400 {"error":"malformed request"}`, `X-Request-ID` and `Connection: close`, and logs it;
 * hands every other request to `listener`. HTTP/1.0 needs no `Host`.
 */
export function refuseWithoutHost(
  listener: NodeRequestListener,
  logger: Logger,
): NodeRequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    if (request.headers.host !== undefined || request.httpVersion !== '1.1') {
      listener(request, response);
      return;
    }
    const answer = adapterFailureResponse('malformed-request');
    response.setHeader('connection', 'close');
    void writeFetchResponse(response, answer).catch(() => response.destroy());
    // Whatever body follows is not read: the connection closes after the answer.
    request.resume();
    logRefusal(logger, {
      requestId: answer.headers.get('x-request-id') ?? randomUUID(),
      status: answer.status,
      remoteAddress: request.socket.remoteAddress ?? 'unknown',
      method: request.method ?? 'unknown',
      refused: 'missing_host',
    });
  };
}
