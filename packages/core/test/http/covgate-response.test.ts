import { describe, expect, it } from 'vitest';
import { replyOf } from '../../src/http/covgate-response.js';
import { apiFixture } from './api-fixture.js';

describe('responses of api.handle', () => {
  it('read as ordinary Fetch responses', async () => {
    const fx = await apiFixture();
    const response = await fx.api.handle(new Request('http://localhost/health'));
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.body).not.toBeNull();
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(response.bodyUsed).toBe(true);
  });

  it('give adapters their status, header record and body text without a body stream', async () => {
    const fx = await apiFixture();
    const response = await fx.api.handle(
      new Request('http://localhost/v1/nope', { headers: { 'x-request-id': 'req-1' } }),
    );
    expect(replyOf(response)).toEqual({
      status: 404,
      body: '{"error":"not found"}',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        vary: 'Origin',
        'x-request-id': 'req-1',
      },
    });
  });

  it('stop giving adapters the parts once a caller read the headers, and keep their changes', async () => {
    const fx = await apiFixture();
    const response = await fx.api.handle(new Request('http://localhost/health'));
    response.headers.set('x-extra', 'yes');
    expect(replyOf(response)).toBeUndefined();
    expect(response.headers.get('x-extra')).toBe('yes');
    expect(await response.text()).toBe('{"status":"ok"}');
  });

  it('keep the badge SVG and its headers', async () => {
    const fx = await apiFixture();
    const response = await fx.api.handle(
      new Request(`http://localhost/v1/badge/${fx.org.slug}/web`),
    );
    expect(replyOf(response)?.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(await response.text()).toMatch(/^<svg /);
  });
});
