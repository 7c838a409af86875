import type { IncomingMessage } from 'node:http';
import { inspect } from 'node:util';

/** A header name `Headers` accepts (an HTTP token); anything else is left to it to refuse. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Every request header as received, duplicates included: repeated headers are joined the
 * Fetch way (`, `, and `; ` for `Cookie`), rather than Node's `req.headers`, which keeps only
 * the first `Authorization` or `Content-Type` and would hide an ambiguous request.
 * HTTP/2 pseudo-headers (`:path`...) are left out.
 */
export function requestHeadersOf(req: IncomingMessage): Headers {
  return new NodeRequestHeaders(req.rawHeaders);
}

/**
 * Fetch `Headers` over a Node request's raw header list. `get` and `has` read a plain map
 * built on first use, so a request whose headers are only looked up never pays for
 * `Headers.append`'s validation of every header; anything else (iterating, writing, copying
 * into another `Headers` or a `Request`) first fills the real `Headers` and then behaves
 * exactly as one. Node's parser has already refused what `Headers` would refuse. Copies
 * (`new Headers(h)`, a `Request` built with it) take the entries as from any iterable, so
 * `Headers` trims the ends of a joined value there (`a, ` of a repeated header whose last
 * value is empty becomes `a,`).
 */
class NodeRequestHeaders extends Headers {
  #raw: readonly string[] | undefined;
  #values: Map<string, string> | undefined;

  constructor(raw: readonly string[]) {
    super();
    this.#raw = raw;
  }

  /** The joined value of each lower-case name, while nothing filled the real `Headers`. */
  #lookup(): Map<string, string> {
    if (this.#values !== undefined) return this.#values;
    const values = new Map<string, string>();
    const raw = this.#raw as readonly string[];
    for (let index = 0; index + 1 < raw.length; index += 2) {
      const name = (raw[index] as string).toLowerCase();
      if (name.charCodeAt(0) === 58 /* : */) continue;
      const value = normaliseValue(raw[index + 1] as string);
      const earlier = values.get(name);
      values.set(
        name,
        earlier === undefined ? value : `${earlier}${name === 'cookie' ? '; ' : ', '}${value}`,
      );
    }
    this.#values = values;
    return values;
  }

  #filled(): this {
    const raw = this.#raw;
    if (raw !== undefined) {
      this.#raw = undefined;
      this.#values = undefined;
      for (let index = 0; index + 1 < raw.length; index += 2) {
        const name = raw[index] as string;
        if (name.charCodeAt(0) === 58 /* : */) continue;
        super.append(name, raw[index + 1] as string);
      }
    }
    return this;
  }

  override get(name: string): string | null {
    if (this.#raw === undefined || !HEADER_NAME.test(name)) return super.get(name);
    return this.#lookup().get(name.toLowerCase()) ?? null;
  }

  override has(name: string): boolean {
    if (this.#raw === undefined || !HEADER_NAME.test(name)) return super.has(name);
    return this.#lookup().has(name.toLowerCase());
  }

  override append(name: string, value: string): void {
    this.#filled();
    super.append(name, value);
  }

  override set(name: string, value: string): void {
    this.#filled();
    super.set(name, value);
  }

  override delete(name: string): void {
    this.#filled();
    super.delete(name);
  }

  override getSetCookie(): string[] {
    return this.#filled() && super.getSetCookie();
  }

  override forEach(
    callback: (value: string, key: string, parent: Headers) => void,
    thisArg?: unknown,
  ): void {
    this.#filled();
    super.forEach(callback, thisArg);
  }

  override keys(): ReturnType<Headers['keys']> {
    return this.#filled() && super.keys();
  }

  override values(): ReturnType<Headers['values']> {
    return this.#filled() && super.values();
  }

  override entries(): ReturnType<Headers['entries']> {
    return this.#filled() && super.entries();
  }

  override [Symbol.iterator](): ReturnType<Headers['entries']> {
    return this.entries();
  }

  [inspect.custom](depth: number, options: object): string {
    this.#filled();
    return inspect(new Headers(this), { ...options, depth });
  }
}

/** What `Headers` stores of a value: without leading and trailing HTTP whitespace. */
function normaliseValue(value: string): string {
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  return isHttpWhitespace(first) || isHttpWhitespace(last)
    ? value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '')
    : value;
}

function isHttpWhitespace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}
