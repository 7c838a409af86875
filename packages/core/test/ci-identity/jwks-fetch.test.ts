import { describe, expect, it } from 'vitest';
import {
  boundedJwksFetch,
  type JwksFetch,
  JwksFetchError,
} from '../../src/ci-identity/jwks-fetch.js';

const URL_ = 'https://issuer.example/.well-known/jwks';
const KEYS = '{"keys":[]}';

function init(signal: AbortSignal = new AbortController().signal) {
  return { method: 'GET' as const, headers: new Headers(), redirect: 'manual' as const, signal };
}

/** A port answering with `answer()` and counting its calls; `cancelled` counts body cancels. */
function port(answer: () => Response | Promise<Response>) {
  const calls: { url: string; init: unknown }[] = [];
  const fetch: JwksFetch = async (url, fetchInit) => {
    calls.push({ url, init: fetchInit });
    return answer();
  };
  return { fetch, calls };
}

/** A body streamed in the given chunks, recording whether the reader cancelled it. */
function streamed(chunks: string[], state = { cancelled: false }) {
  const encoder = new TextEncoder();
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(encoder.encode(chunk));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { body, state };
}

function bounded(
  fetch: JwksFetch,
  bounds: { maxBytes?: number; failureBackoffMs?: number; now?: () => number } = {},
) {
  return boundedJwksFetch(fetch, {
    maxBytes: bounds.maxBytes ?? 64,
    failureBackoffMs: bounds.failureBackoffMs ?? 0,
    now: bounds.now ?? (() => 0),
  });
}

async function failure(promise: Promise<unknown>): Promise<JwksFetchError> {
  const error = await promise.then(
    () => expect.unreachable('the fetch should fail'),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(JwksFetchError);
  return error as JwksFetchError;
}

describe('boundedJwksFetch', () => {
  it('passes the request to the port and answers the key set as JSON with status 200', async () => {
    const { fetch, calls } = port(
      () => new Response(KEYS, { status: 200, headers: { 'content-type': 'text/plain' } }),
    );
    const request = init();
    const response = await bounded(fetch)(URL_, request);
    expect(calls).toEqual([{ url: URL_, init: request }]);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe(KEYS);
  });

  it('joins a body streamed in several chunks in order', async () => {
    const { body } = streamed(['{"ke', 'ys":', '[]}']);
    const { fetch } = port(() => new Response(body, { status: 200 }));
    expect(await (await bounded(fetch)(URL_, init())).text()).toBe(KEYS);
  });

  it('answers an empty body when the issuer sends none', async () => {
    const { fetch } = port(() => new Response(null, { status: 200 }));
    expect(await (await bounded(fetch)(URL_, init())).text()).toBe('');
  });

  it('accepts a declared length of exactly maxBytes and refuses one byte more, unread', async () => {
    const exact = 'x'.repeat(64);
    const { fetch } = port(
      () => new Response(exact, { status: 200, headers: { 'content-length': '64' } }),
    );
    expect(await (await bounded(fetch)(URL_, init())).text()).toBe(exact);

    const { body, state } = streamed([exact]);
    const { fetch: tooLong } = port(
      () => new Response(body, { status: 200, headers: { 'content-length': '65' } }),
    );
    const error = await failure(bounded(tooLong)(URL_, init()));
    expect(error.message).toBe('key set larger than 64 bytes');
    expect(error.name).toBe('JwksFetchError');
    expect(state.cancelled).toBe(true);
  });

  it('refuses a declared length over maxBytes even when the port gives no body', async () => {
    const { fetch } = port(
      () => new Response(null, { status: 200, headers: { 'content-length': '65' } }),
    );
    expect((await failure(bounded(fetch)(URL_, init()))).message).toBe(
      'key set larger than 64 bytes',
    );
  });

  it('accepts a streamed body of exactly maxBytes and refuses one byte more, cancelling the stream', async () => {
    const { body: exactBody } = streamed(['x'.repeat(32), 'x'.repeat(32)]);
    const { fetch } = port(() => new Response(exactBody, { status: 200 }));
    expect((await (await bounded(fetch)(URL_, init())).text()).length).toBe(64);

    const { body, state } = streamed(['x'.repeat(32), 'x'.repeat(33), 'never read']);
    const { fetch: tooLong } = port(() => new Response(body, { status: 200 }));
    const error = await failure(bounded(tooLong)(URL_, init()));
    expect(error.message).toBe('key set larger than 64 bytes');
    expect(state.cancelled).toBe(true);
  });

  it('ignores a declared length that is not a finite number and bounds the stream instead', async () => {
    const { fetch } = port(
      () => new Response(KEYS, { status: 200, headers: { 'content-length': 'Infinity' } }),
    );
    expect(await (await bounded(fetch)(URL_, init())).text()).toBe(KEYS);
  });

  it('refuses an answer other than 200, cancelling its body', async () => {
    const { body, state } = streamed(['<html>down</html>']);
    const { fetch } = port(() => new Response(body, { status: 503 }));
    const error = await failure(bounded(fetch)(URL_, init()));
    expect(error.message).toBe('key set answered HTTP 503');
    expect(state.cancelled).toBe(true);
    const { fetch: redirect } = port(
      () =>
        new Response(null, { status: 302, headers: { location: 'https://elsewhere.example/' } }),
    );
    expect((await failure(bounded(redirect)(URL_, init()))).message).toBe(
      'key set answered HTTP 302',
    );
  });

  it('says why the port failed, with the cause of fetch failed', async () => {
    const failing =
      (error: unknown): JwksFetch =>
      async () => {
        throw error;
      };
    const refused = new TypeError('fetch failed', {
      cause: new Error('10.0.0.5 is a private address'),
    });
    expect((await failure(bounded(failing(refused))(URL_, init()))).message).toBe(
      'key set fetch failed: fetch failed: 10.0.0.5 is a private address',
    );
    expect(
      (await failure(bounded(failing(new Error('socket hang up')))(URL_, init()))).message,
    ).toBe('key set fetch failed: socket hang up');
    expect(
      (await failure(bounded(failing(new Error('odd', { cause: 'text' })))(URL_, init()))).message,
    ).toBe('key set fetch failed: odd');
    expect((await failure(bounded(failing('dns'))(URL_, init()))).message).toBe(
      'key set fetch failed: dns',
    );
  });

  it('times out when the signal is already aborted and the port has not answered', async () => {
    const controller = new AbortController();
    controller.abort();
    const never: JwksFetch = () => new Promise(() => {});
    expect((await failure(bounded(never)(URL_, init(controller.signal)))).message).toBe(
      'key set fetch timed out',
    );
  });

  it('times out when the port never answers before the deadline', async () => {
    const controller = new AbortController();
    const never: JwksFetch = () => new Promise(() => {});
    const pending = bounded(never)(URL_, init(controller.signal));
    setTimeout(() => controller.abort(), 5);
    expect((await failure(pending)).message).toBe('key set fetch timed out');
  });

  it('times out when the body drips past the deadline, cancelling the stream', async () => {
    const controller = new AbortController();
    const state = { cancelled: false };
    const body = new ReadableStream<Uint8Array>({
      start(streamController) {
        streamController.enqueue(new TextEncoder().encode('{"keys"'));
      },
      cancel() {
        state.cancelled = true;
      },
    });
    const { fetch } = port(() => new Response(body, { status: 200 }));
    const pending = bounded(fetch)(URL_, init(controller.signal));
    setTimeout(() => controller.abort(), 5);
    expect((await failure(pending)).message).toBe('key set fetch timed out');
    expect(state.cancelled).toBe(true);
  });

  it('after a failure, fails at once until failureBackoffMs has passed, then asks again', async () => {
    let now = 1_000;
    let status = 500;
    const { fetch, calls } = port(() => new Response(KEYS, { status }));
    const jwks = bounded(fetch, { failureBackoffMs: 500, now: () => now });
    expect((await failure(jwks(URL_, init()))).message).toBe('key set answered HTTP 500');
    status = 200;
    now = 1_499;
    expect((await failure(jwks(URL_, init()))).message).toBe(
      'key set fetch backing off after a failure',
    );
    expect(calls).toHaveLength(1);
    now = 1_500;
    expect((await jwks(URL_, init())).status).toBe(200);
    expect(calls).toHaveLength(2);
    // A success clears the failure: the next fetches go through at once.
    expect((await jwks(URL_, init())).status).toBe(200);
    expect(calls).toHaveLength(3);
  });

  it('backs off after a refused size or a port error too, counted from that failure', async () => {
    let now = 0;
    let answer: () => Response = () => new Response('x'.repeat(65), { status: 200 });
    const { fetch, calls } = port(() => answer());
    const jwks = bounded(fetch, { failureBackoffMs: 100, now: () => now });
    await failure(jwks(URL_, init()));
    now = 99;
    expect((await failure(jwks(URL_, init()))).message).toBe(
      'key set fetch backing off after a failure',
    );
    now = 100;
    answer = () => {
      throw new Error('reset');
    };
    expect((await failure(jwks(URL_, init()))).message).toBe('key set fetch failed: reset');
    now = 150;
    expect((await failure(jwks(URL_, init()))).message).toBe(
      'key set fetch backing off after a failure',
    );
    expect(calls).toHaveLength(2);
  });

  it('never backs off with failureBackoffMs 0', async () => {
    const { fetch, calls } = port(() => new Response(null, { status: 404 }));
    const jwks = bounded(fetch, { failureBackoffMs: 0, now: () => 7 });
    expect((await failure(jwks(URL_, init()))).message).toBe('key set answered HTTP 404');
    expect((await failure(jwks(URL_, init()))).message).toBe('key set answered HTTP 404');
    expect(calls).toHaveLength(2);
  });
});
