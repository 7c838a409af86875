/** One request as the injected fetch saw it. */
export interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  credentials: RequestCredentials;
}

/** A fetch that answers from a script (a Response, or an error to throw) and records every request. */
export function scriptedFetch(script: Array<Response | Error | (() => Response)>) {
  const seen: Seen[] = [];
  let next = 0;
  const fetch = async (request: Request): Promise<Response> => {
    seen.push({
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body: await request.text(),
      credentials: request.credentials,
    });
    const step = script[next++];
    if (step === undefined) throw new Error(`unexpected request ${next}`);
    if (step instanceof Error) throw step;
    return typeof step === 'function' ? step() : step;
  };
  return { fetch, seen };
}

/** A JSON answer with the API's headers. */
export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  });
}

/** An answer that is not JSON (a web page, a proxy's error page, an SVG badge). */
export function text(status: number, body: string, contentType: string): Response {
  return new Response(body, { status, headers: { 'Content-Type': contentType } });
}

/** A sleep that only records the delays it was asked for. */
export function recordingSleep() {
  const delays: number[] = [];
  const sleep = async (ms: number) => {
    delays.push(ms);
  };
  return { sleep, delays };
}

/** What `promise` rejects with; throws when it fulfils instead. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
