import { describe, expect, it } from 'vitest';
import { RESPONSE_TEXT, responseTextOf } from '../../src/http/json-response.js';
import { apiFixture } from './api-fixture.js';

describe('response bodies', () => {
  it('gives ordinary readable bodies to callers that did not opt in', async () => {
    const fx = await apiFixture();
    const response = await fx.api.handle(new Request('http://localhost/health'));
    expect(response.body).not.toBeNull();
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('gives adapters that accept response text a bodyless response carrying the same text', async () => {
    const fx = await apiFixture();
    const response = await fx.api.handle(new Request('http://localhost/v1/nope'), {
      acceptsResponseText: true,
    });
    expect(response.status).toBe(404);
    expect(response.body).toBeNull();
    expect(responseTextOf(response)).toBe('{"error":"not found"}');
    expect(RESPONSE_TEXT).toBe(Symbol.for('covgate.responseText'));
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('vary')).toBe('Origin');
  });

  it('keeps the badge SVG and its headers in both forms', async () => {
    const fx = await apiFixture();
    const plain = await fx.api.handle(new Request(`http://localhost/v1/badge/${fx.org.slug}/web`));
    const text = await fx.api.handle(new Request(`http://localhost/v1/badge/${fx.org.slug}/web`), {
      acceptsResponseText: true,
    });
    expect(responseTextOf(text)).toBe(await plain.text());
    expect(text.headers.get('etag')).toBe(plain.headers.get('etag'));
    expect(text.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
  });
});
