import { describe, expect, it } from 'vitest';
import {
  isCovgatePath,
  normaliseBasePath,
  OUTSIDE_BASE_PATH,
  pathAndQueryOf,
  stripBasePath,
} from '../src/index.js';

describe('normaliseBasePath', () => {
  it.each([
    [undefined, ''],
    ['', ''],
    ['/', ''],
    ['/coverage', '/coverage'],
    ['/coverage/', '/coverage'],
    ['/a/b//', '/a/b'],
  ])('brings %j to %j', (given, expected) => {
    expect(normaliseBasePath(given)).toBe(expected);
  });

  it.each(['coverage', 'coverage/', '/coverage?x=1', '/coverage#top'])(
    'refuses %j at start-up',
    (given) => {
      expect(() => normaliseBasePath(given)).toThrow(TypeError);
    },
  );
});

describe('stripBasePath', () => {
  it.each([
    ['/coverage/v1/executions?org=a&repo=b', '/v1/executions?org=a&repo=b'],
    ['/coverage/health', '/health'],
    ['/coverage', '/'],
    ['/coverage?x=1', '/?x=1'],
    ['/coverage/', '/'],
  ])('maps %s to %s under /coverage', (given, expected) => {
    expect(stripBasePath(given, '/coverage')).toBe(expected);
  });

  it.each(['/health', '/coveragex/health', '/Coverage/health', '/v1/executions', '/'])(
    'sends %s, outside /coverage, to a path covgate does not serve',
    (given) => {
      const stripped = stripBasePath(given, '/coverage');
      expect(stripped).toBe(OUTSIDE_BASE_PATH);
      expect(isCovgatePath(stripped)).toBe(false);
    },
  );

  it('keeps the path as is without a base path', () => {
    expect(stripBasePath('/v1/x?y=%2F', '')).toBe('/v1/x?y=%2F');
  });

  it('does not mistake a query that mentions the base path for the path', () => {
    expect(stripBasePath('/health?next=/coverage/v1', '/coverage')).toBe(OUTSIDE_BASE_PATH);
  });
});

describe('pathAndQueryOf', () => {
  it.each([
    ['/v1/x?y=1', '/v1/x?y=1'],
    ['http://proxy.example/v1/x?y=1', '/v1/x?y=1'],
    ['*', '/*'],
  ])('reads the request target %s as %s', (target, expected) => {
    expect(pathAndQueryOf(target)).toBe(expected);
  });
});
