import type { Reply } from './reply.js';

const NativeResponse = globalThis.Response;
const REPLY = Symbol('covgate.reply');
const NATIVE = Symbol('covgate.native');

/**
 * The `Response` `api.handle` resolves to. It keeps the reply as plain values (status, body
 * text, a header record, cookies) and builds a native Fetch `Response` only when a caller
 * reads more than the status: on Node 20 a native response with a body stream costs more
 * than the rest of a small request. `instanceof Response` holds, and every property and
 * method behaves as on a native response. The Node adapters write the plain values
 * directly ({@link replyOf}).
 */
class CovgateResponse {
  [REPLY]: Reply | undefined;
  [NATIVE]: Response | undefined;

  constructor(reply: Reply) {
    this[REPLY] = reply;
  }

  get status(): number {
    return this[REPLY]?.status ?? nativeOf(this).status;
  }

  get ok(): boolean {
    const { status } = this;
    return status >= 200 && status < 300;
  }
}

function nativeOf(response: CovgateResponse): Response {
  let native = response[NATIVE];
  if (native === undefined) {
    const reply = response[REPLY] as Reply;
    const headers = new Headers(reply.headers);
    for (const cookie of reply.cookies ?? []) headers.append('set-cookie', cookie);
    native = new NativeResponse(reply.body, { status: reply.status, headers });
    response[NATIVE] = native;
    // From now on the native response is the truth (its headers may be changed).
    response[REPLY] = undefined;
  }
  return native;
}

for (const name of [
  'body',
  'bodyUsed',
  'headers',
  'redirected',
  'statusText',
  'type',
  'url',
] as const) {
  Object.defineProperty(CovgateResponse.prototype, name, {
    get(this: CovgateResponse) {
      return nativeOf(this)[name];
    },
  });
}
for (const name of ['arrayBuffer', 'blob', 'bytes', 'clone', 'formData', 'json', 'text'] as const) {
  Object.defineProperty(CovgateResponse.prototype, name, {
    value(this: CovgateResponse) {
      const native = nativeOf(this) as unknown as Record<string, () => unknown>;
      return native[name]?.call(native);
    },
  });
}
Object.setPrototypeOf(CovgateResponse.prototype, NativeResponse.prototype);

/** Wraps a finished reply as the `Response` of `api.handle`. */
export function toResponse(reply: Reply): Response {
  return new CovgateResponse(reply) as unknown as Response;
}

/**
 * The plain parts of a response `api.handle` returned, for adapters that write them
 * directly (status, a header record with lower-case names, `Set-Cookie` values, body
 * text); `undefined` for any other response, or once its headers or body were read as a
 * Fetch `Response` (write it as one then).
 */
export function replyOf(response: Response): Readonly<Reply> | undefined {
  return response instanceof CovgateResponse ? response[REPLY] : undefined;
}
