import { itReturns } from '@covgate/test-support/value-table';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { queryOf } from '../../src/http/request-scope.js';

describe('queryOf', () => {
  itReturns(queryOf, 'reads the query of %s', [
    ['http://h/v1/executions', ''],
    ['http://h/v1/executions?', ''],
    ['http://h/v1/executions?org=a&repo=b', 'org=a&repo=b'],
    ['http://h/p?x=1?y=2#f?z', 'x=1?y=2'],
    ['http://h/p#f?z', ''],
    ['http://h/p?a=%20+b#', 'a=%20+b'],
  ]);

  it('gives the parameters the WHATWG URL parser gives, for any path and query', () => {
    fc.assert(
      fc.property(
        fc.webPath(),
        fc.string({ unit: 'binary' }),
        fc.option(fc.string()),
        (path, query, fragment) => {
          const raw = `http://127.0.0.1${path}?${query}${fragment === null ? '' : `#${fragment}`}`;
          const urls = [new URL(raw).href];
          // A bridge may pass the target as received: Node's parser lets no control
          // character or space into it, which the URL parser would strip.
          if (![...raw].some((char) => char <= ' ')) urls.push(raw);
          for (const url of urls) {
            expect([...new URLSearchParams(queryOf(url))]).toEqual([...new URL(url).searchParams]);
          }
        },
      ),
    );
  });
});
