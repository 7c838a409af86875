import type { IncomingMessage } from 'node:http';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestHeadersOf } from '../src/request-headers.js';

const NAMES = [
  'Host',
  'host',
  'Authorization',
  'AUTHORIZATION',
  'Cookie',
  'cookie',
  'X-Request-ID',
  'Set-Cookie',
  ':path',
  'Accept',
];
const VALUES = ['a', ' b ', 'c=1; d=2', '', '\tx', 'Bearer cvg_1', 'é'];
const LOOKED_UP = [
  'host',
  'Authorization',
  'cookie',
  'x-request-id',
  'set-cookie',
  'accept',
  'origin',
  ':path',
  'bad name',
  '',
];

/** What a `Headers` filled by `append` from the raw list holds (pseudo-headers left out). */
function reference(raw: string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index < raw.length; index += 2) {
    if (!raw[index]!.startsWith(':')) headers.append(raw[index]!, raw[index + 1]!);
  }
  return headers;
}

const outcome = (read: () => unknown) => {
  try {
    return { value: read() };
  } catch (error) {
    return { error: (error as Error).constructor.name };
  }
};

const rawLists = fc
  .array(fc.tuple(fc.constantFrom(...NAMES), fc.constantFrom(...VALUES)), { maxLength: 8 })
  .map((pairs) => pairs.flat());

describe('requestHeadersOf', () => {
  it('reads as Headers filled from the raw list would, before and after it is changed', () => {
    fc.assert(
      fc.property(rawLists, fc.boolean(), (raw, change) => {
        const headers = requestHeadersOf({ rawHeaders: raw } as unknown as IncomingMessage);
        const expected = reference(raw);
        expect(headers).toBeInstanceOf(Headers);
        for (const name of LOOKED_UP) {
          expect(outcome(() => headers.get(name))).toEqual(outcome(() => expected.get(name)));
          expect(outcome(() => headers.has(name))).toEqual(outcome(() => expected.has(name)));
        }
        if (change) {
          headers.set('x-request-id', 'r1');
          expected.set('x-request-id', 'r1');
          headers.delete('cookie');
          expected.delete('cookie');
          expect(headers.get('x-request-id')).toBe('r1');
        }
        expect([...headers]).toEqual([...expected]);
        expect([...headers.keys()]).toEqual([...expected.keys()]);
        expect([...headers.values()]).toEqual([...expected.values()]);
        expect(headers.getSetCookie()).toEqual(expected.getSetCookie());
        // Copies take the entries one by one, as from any iterable: Headers then trims the
        // ends of a joined value (`a, ` of a repeated header whose last value is empty).
        const copied = [...expected].map(([name, value]) => [name, value.trim()]);
        expect([...new Headers(headers)]).toEqual(copied);
        expect([...new Request('http://x/', { headers }).headers]).toEqual(copied);
      }),
      { numRuns: 500 },
    );
  });

  it('prints its headers when inspected', () => {
    const headers = requestHeadersOf({
      rawHeaders: ['Host', 'example.com', 'Accept', 'text/plain'],
    } as unknown as IncomingMessage);
    expect(inspect(headers)).toBe("Headers { accept: 'text/plain', host: 'example.com' }");
  });
});
