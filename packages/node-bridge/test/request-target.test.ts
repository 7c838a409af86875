import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestUrlOf } from '../src/request-target.js';

/** Characters that matter to the URL parser in a path and query, and some that do not. */
const TARGET_CHARS = [
  ...'aZ09-._~!$&\'()*+,;=:@/?%#\\ "<>`{}|^[]',
  '\t',
  'é',
  '\u0000',
  '.',
  '..',
  '%2e',
  '%2E',
];

describe('requestUrlOf', () => {
  it('is what the URL parser makes of the origin and the path and query', () => {
    const origins = fc.constantFrom(
      'http://127.0.0.1:8080',
      'http://localhost',
      'http://EXAMPLE.com:80',
      'https://example.com:443',
      'http://127.1',
      'http://0x7f.0.0.1:3000',
      'http://[::1]:8080',
      'http://example.com.',
      'https://ci.example.com/base',
      'https://ci.example.com?x',
    );
    const targets = fc
      .array(fc.constantFrom(...TARGET_CHARS), { maxLength: 24 })
      .map((parts) => `/${parts.join('')}`);
    fc.assert(
      fc.property(origins, targets, (origin, target) => {
        expect(requestUrlOf(origin, target)).toBe(new URL(`${origin}${target}`).href);
      }),
      { numRuns: 5000 },
    );
  });

  it('refuses what the URL parser refuses', () => {
    expect(() => requestUrlOf('http://exa mple.com', '/health')).toThrow(TypeError);
    expect(() => requestUrlOf('http://[::1', '/health?a=1')).toThrow(TypeError);
  });
});
