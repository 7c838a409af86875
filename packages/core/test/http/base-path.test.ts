import { describe, expect, it } from 'vitest';
import { isCovgatePath } from '../../src/http/covgate-paths.js';
import { apiFixture } from './api-fixture.js';

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

describe('createApi: base path', () => {
  it.each([
    ['/coverage/health', 200],
    ['/coverage/health?x=1', 200],
    ['/coverage/v1/nope', 404],
    ['/coverage', 404],
    ['/coverage/', 404],
  ])('answers %s under /coverage with %i', async (path, status) => {
    const fx = await apiFixture({ basePath: '/coverage/' });
    const response = await fx.api.handle(new Request(`http://localhost${path}`));
    expect(response.status).toBe(status);
  });

  it.each(['/health', '/coveragex/health', '/Coverage/health', '/health?next=/coverage/health'])(
    'answers %s, outside /coverage, with the usual 404',
    async (path) => {
      const fx = await apiFixture({ basePath: '/coverage' });
      const response = await fx.api.handle(
        new Request(`http://localhost${path}`, { headers: { 'x-request-id': 'outside-1' } }),
      );
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: 'not found' });
      expect(response.headers.get('x-request-id')).toBe('outside-1');
      expect(response.headers.get('vary')).toBe('Origin');
    },
  );

  it('exposes the normalised base path', async () => {
    expect((await apiFixture({ basePath: '/coverage//' })).api.basePath).toBe('/coverage');
    expect((await apiFixture()).api.basePath).toBe('');
  });
});
