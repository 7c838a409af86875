import { createApi, createMemoryStore } from '@covgate/core';
import { describe, expect, it } from 'vitest';
import { dashboardBasePath } from '../src/base-path.js';

const REFUSED = 'refused';

/** Inputs with what both the API and the dashboard make of them. */
const CASES: readonly [input: string, normalised: string][] = [
  ['', ''],
  ['/', ''],
  ['//', ''],
  ['/dashboard', '/dashboard'],
  ['/dashboard/', '/dashboard'],
  ['/a/b//', '/a/b'],
  ['/coverage.v2_x-y~z', '/coverage.v2_x-y~z'],
  ["/!$&'()*+,;=:@", "/!$&'()*+,;=:@"],
  ['/caf%C3%A9', '/caf%C3%A9'],
  ['dashboard', REFUSED],
  ['https://covgate.example.com/dashboard', REFUSED],
  ['/dash board', REFUSED],
  ['/café', REFUSED],
  ['/a"b', REFUSED],
  ['/a<b>', REFUSED],
  ['/a?b', REFUSED],
  ['/a#b', REFUSED],
  ['/a\\b', REFUSED],
];

function outcome(normalise: () => string): string {
  try {
    return normalise();
  } catch {
    return REFUSED;
  }
}

function apiBasePath(basePath: string): string {
  return createApi({ store: createMemoryStore(), sessionSecret: 'a'.repeat(32), basePath })
    .basePath;
}

describe('the dashboard base path', () => {
  it.each(CASES)('makes of %j what the API makes of it: %j', (input, normalised) => {
    expect(outcome(() => apiBasePath(input))).toBe(normalised);
    expect(outcome(() => dashboardBasePath(input))).toBe(normalised);
  });

  it('is /dashboard when unset', () => {
    expect(dashboardBasePath(undefined)).toBe('/dashboard');
  });

  it('refuses with a TypeError naming the option and the value', () => {
    expect(() => dashboardBasePath('/dash board')).toThrow(
      new TypeError('basePath must be a path starting with "/": /dash board'),
    );
  });
});
