import { describe, expect, it } from 'vitest';
import { isCovgatePath } from '../src/index.js';

describe('isCovgatePath', () => {
  it.each([
    '/health',
    '/health/ready',
    '/v1',
    '/v1/',
    '/v1/executions',
    '/v1/tokens/abc/rotate',
    '/auth',
    '/auth/github',
    '/auth/github/callback',
  ])('claims %s', (path) => {
    expect(isCovgatePath(path)).toBe(true);
  });

  it.each([
    '',
    '/',
    '/healthz',
    '/health/',
    '/HEALTH',
    '/V1/executions',
    '/v10/executions',
    '/v1executions',
    '/authorize',
    '/api/v1/executions',
    '//v1/executions',
    '/v1%2Fexecutions',
    '/ health',
  ])('leaves %j to the host application', (path) => {
    expect(isCovgatePath(path)).toBe(false);
  });
});
