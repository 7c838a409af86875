import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { FakeAnswer } from './fake-github-rest.js';

/** A request the fake code host handles: its method, URL, headers and JSON body. */
export interface FakeRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  json: Record<string, unknown>;
}

/** What a fake code host answers a request with. */
export interface FakeReply {
  status: number;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as they are instead of `body` (a raw file), with the `content-type` of `headers`. */
  raw?: Uint8Array;
  headers?: Record<string, string>;
}

/** The levers every fake code host has (see the GitHub, GitLab and Gitea fakes). */
export interface FakeRestServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** `METHOD path` of each request answered (failed ones included), in order. */
  requests: string[];
  /** Answers the next `count` requests (default 1) with `answer` instead of handling them. */
  failNext(answer: FakeAnswer, count?: number): void;
  /** Answers every request with `answer` for the next `ms` milliseconds. */
  failFor(answer: FakeAnswer, ms: number): void;
  /**
   * `refuse`: closes the port (connection refused); `hang`: accepts requests and never answers
   * them; `null`: back to normal, on the same port.
   */
  setDown(mode: 'refuse' | 'hang' | null): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a loopback server for a fake code host: `handle` answers each request unless a
 * failure lever answers it first. Shared by the fakes so that each holds only its API's rules.
 */
export async function startFakeRestServer(
  handle: (request: FakeRequest) => FakeReply,
): Promise<FakeRestServer> {
  const requests: string[] = [];
  const failures: FakeAnswer[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  let mode: 'refuse' | 'hang' | null = null;
  let lasting: { answer: FakeAnswer; until: number } | null = null;

  const server = createServer((request, response) => {
    answer(request, response).catch(() =>
      send(response, { status: 500, body: { message: '500 Internal Server Error' } }),
    );
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const text = await readBody(request);
    if (mode === 'hang') {
      hanging.add(response);
      return;
    }
    requests.push(`${request.method} ${url.pathname}`);
    const failure =
      lasting !== null && Date.now() < lasting.until ? lasting.answer : failures.shift();
    if (failure) {
      send(response, {
        status: failure.status,
        body: failure.body ?? { message: 'fake failure' },
        ...(failure.headers ? { headers: failure.headers } : {}),
      });
      return;
    }
    send(
      response,
      handle({ method: request.method ?? 'GET', url, headers: request.headers, json: parse(text) }),
    );
  }

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const shut = () =>
    new Promise<void>((resolve) => {
      for (const response of hanging) response.destroy();
      hanging.clear();
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });

  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    failNext(answer, count = 1) {
      for (let index = 0; index < count; index += 1) failures.push(answer);
    },
    failFor(answer, ms) {
      lasting = { answer, until: Date.now() + ms };
    },
    async setDown(next) {
      const wasRefusing = mode === 'refuse';
      mode = next;
      if (next === 'refuse' && !wasRefusing) await shut();
      if (next !== 'refuse' && wasRefusing) await listen(port);
      if (next === null) {
        for (const response of hanging) response.destroy();
        hanging.clear();
      }
    },
    close: async () => {
      if (mode !== 'refuse') await shut();
    },
  };
}

function send(response: ServerResponse, reply: FakeReply): void {
  if (response.headersSent || response.destroyed) return;
  if (reply.status === 204) {
    response.writeHead(204, reply.headers ?? {}).end();
    return;
  }
  if (reply.raw !== undefined) {
    response.writeHead(reply.status, reply.headers ?? {}).end(reply.raw);
    return;
  }
  response
    .writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
    .end(JSON.stringify(reply.body ?? null));
}

function parse(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
