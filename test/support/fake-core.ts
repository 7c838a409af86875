import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CovgateApi, RequestContext } from '@covgate/core';
import { expect } from 'vitest';

/** What the bridge serves. */
export type FetchApi = Pick<CovgateApi, 'handle'>;

/** What the fake core saw of one request. */
export interface Echo {
  method: string;
  url: string;
  pathname: string;
  search: string;
  headers: Record<string, string>;
  /** Body bytes as base64, or null when the request had no body. */
  body: string | null;
  remoteAddress: string | null;
}

/** The echo in an answer of the fake core, which must be a 200. */
export async function echoOf(response: Response): Promise<Echo> {
  expect(response.status).toBe(200);
  return (await response.json()) as Echo;
}

/** Secret of the fake webhook route (`POST /v1/webhook`, header `x-signature: <hex>`). */
export const WEBHOOK_SECRET = 'whsec_test';

/** HMAC-SHA256 hex of the exact bytes, as a provider would sign them. */
export function sign(body: Uint8Array | string): string {
  return createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex');
}

/**
 * The cookies `GET /v1/cookies` sets, one Set-Cookie header each: one with a comma in its value
 * and one with the comma of an Expires date, which a bridge that joins them would break.
 */
export const FAKE_COOKIES: readonly string[] = [
  'a=1; Path=/; HttpOnly',
  'b=2, with comma; Path=/',
  'c=3; Expires=Wed, 21 Oct 2026 07:28:00 GMT',
];

/** Something that happens once, that a test can await. */
export interface Signal {
  readonly happened: Promise<void>;
  fire(): void;
  readonly fired: boolean;
}

function signal(): Signal {
  let fire = (): void => {};
  let fired = false;
  const happened = new Promise<void>((resolve) => {
    fire = () => {
      fired = true;
      resolve();
    };
  });
  return {
    happened,
    fire: () => fire(),
    get fired() {
      return fired;
    },
  };
}

/** A stand-in for covgate's core with routes that exercise the adapters. */
export interface FakeCore {
  api: FetchApi;
  /** Requests the fake received, in order. */
  seen: Request[];
  /** The response stream of `/v1/endless` or `/v1/stalled` was cancelled. */
  responseCancelled: Signal;
  /** `/v1/endless` or `/v1/stalled` started. */
  started: Signal;
  /** How many chunks `/v1/stream` produced so far. */
  readonly streamedChunks: number;
}

const encoder = new TextEncoder();

/**
 * A fake core following covgate's contracts: unknown paths 404, a body-read error with
 * `status === 413` becomes `413 {"error":"payload too large"}`.
 */
export function createFakeCore(): FakeCore {
  const seen: Request[] = [];
  const responseCancelled = signal();
  const started = signal();
  let streamedChunks = 0;

  async function answer(request: Request, context: RequestContext | undefined): Promise<Response> {
    const url = new URL(request.url);
    switch (url.pathname) {
      case '/health':
      case '/v1/echo': {
        const body =
          request.body === null
            ? null
            : Buffer.from(await request.arrayBuffer()).toString('base64');
        const echo: Echo = {
          method: request.method,
          url: request.url,
          pathname: url.pathname,
          search: url.search,
          headers: Object.fromEntries(request.headers),
          body,
          remoteAddress: context?.remoteAddress ?? null,
        };
        return Response.json(echo, { headers: { 'x-request-id': 'req-1' } });
      }
      case '/v1/cookies': {
        const headers = new Headers({ 'content-type': 'application/json' });
        for (const cookie of FAKE_COOKIES) headers.append('set-cookie', cookie);
        return new Response('{}', { headers });
      }
      case '/v1/empty':
        return new Response(null, { status: Number(url.searchParams.get('status') ?? 200) });
      case '/v1/stream': {
        const chunks = Number(url.searchParams.get('chunks'));
        const size = Number(url.searchParams.get('size'));
        let sent = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent === chunks) return controller.close();
            controller.enqueue(new Uint8Array(size).fill(sent % 251));
            sent += 1;
            streamedChunks += 1;
          },
        });
        return new Response(body, { headers: { 'content-type': 'application/octet-stream' } });
      }
      case '/v1/endless': {
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            started.fire();
            await new Promise((resolve) => setTimeout(resolve, 5));
            controller.enqueue(encoder.encode('tick\n'));
          },
          cancel() {
            responseCancelled.fire();
          },
        });
        return new Response(body);
      }
      case '/v1/stalled': {
        let pulls = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            pulls += 1;
            if (pulls === 1) {
              started.fire();
              controller.enqueue(encoder.encode('first and last\n'));
              return;
            }
            return new Promise<void>(() => {});
          },
          cancel() {
            responseCancelled.fire();
          },
        });
        return new Response(body);
      }
      case '/v1/broken': {
        let pulls = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            pulls += 1;
            if (pulls > 1) throw new Error('storage went away');
            controller.enqueue(encoder.encode('partial'));
          },
        });
        return new Response(body);
      }
      case '/v1/throw':
        throw new Error('database password is hunter2 at db.internal:5432');
      case '/v1/webhook': {
        const bytes = new Uint8Array(await request.arrayBuffer());
        const given = Buffer.from(request.headers.get('x-signature') ?? '', 'hex');
        const expected = Buffer.from(sign(bytes), 'hex');
        const valid = given.length === expected.length && timingSafeEqual(given, expected);
        return valid
          ? Response.json({ received: true })
          : Response.json({ error: 'invalid signature' }, { status: 401 });
      }
      default:
        return Response.json({ error: 'not found' }, { status: 404 });
    }
  }

  const api: FetchApi = {
    async handle(request, context) {
      seen.push(request);
      try {
        return await answer(request, context);
      } catch (error) {
        if (error instanceof Error && (error as { status?: unknown }).status === 413) {
          return Response.json({ error: 'payload too large' }, { status: 413 });
        }
        throw error;
      }
    },
  };
  return {
    api,
    seen,
    responseCancelled,
    started,
    get streamedChunks() {
      return streamedChunks;
    },
  };
}
