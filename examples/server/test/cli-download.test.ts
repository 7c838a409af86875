import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serveCliDownload } from '../src/cli-download.js';

const dir = mkdtempSync(join(tmpdir(), 'covgate-cli-download-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bytes = Buffer.from('not really a tarball, but bytes all the same');
const sha256 = createHash('sha256').update(bytes).digest('hex');
const tarball = join(dir, 'covgate.tgz');
writeFileSync(tarball, bytes);

const request = (path: string, init: RequestInit = {}) =>
  new Request(`http://covgate.test${path}`, init);

async function answer(path: string, init: RequestInit = {}, file = tarball) {
  const response = await serveCliDownload(file)(request(path, init));
  if (!response) return undefined;
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: Buffer.from(await response.arrayBuffer()),
  };
}

describe('GET /cli/covgate.tgz', () => {
  it('answers the tarball with its checksum as entity tag and digest', async () => {
    expect(await answer('/cli/covgate.tgz')).toEqual({
      status: 200,
      headers: {
        'cache-control': 'no-cache',
        'content-disposition': 'attachment; filename="covgate.tgz"',
        'content-length': String(bytes.byteLength),
        'content-type': 'application/gzip',
        etag: `"sha256-${sha256}"`,
        'repr-digest': `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`,
        'x-content-type-options': 'nosniff',
      },
      body: bytes,
    });
  });

  it('answers HEAD with the same headers and no body', async () => {
    const head = await answer('/cli/covgate.tgz', { method: 'HEAD' });
    expect(head?.status).toBe(200);
    expect(head?.headers['content-length']).toBe(String(bytes.byteLength));
    expect(head?.headers.etag).toBe(`"sha256-${sha256}"`);
    expect(head?.body.byteLength).toBe(0);
  });

  it('answers 304 to a request naming its entity tag', async () => {
    expect(
      await answer('/cli/covgate.tgz', {
        headers: { 'if-none-match': `W/"x", "sha256-${sha256}"` },
      }),
    ).toEqual({
      status: 304,
      headers: {
        'cache-control': 'no-cache',
        etag: `"sha256-${sha256}"`,
        'x-content-type-options': 'nosniff',
      },
      body: Buffer.alloc(0),
    });
    const changed = await answer('/cli/covgate.tgz', {
      headers: { 'if-none-match': '"sha256-0000"' },
    });
    expect(changed?.status).toBe(200);
  });

  it('answers the checksum in sha256sum format at /cli/covgate.tgz.sha256', async () => {
    const body = `${sha256}  covgate.tgz\n`;
    expect(await answer('/cli/covgate.tgz.sha256')).toEqual({
      status: 200,
      headers: {
        'cache-control': 'no-cache',
        'content-length': String(body.length),
        'content-type': 'text/plain; charset=utf-8',
        etag: `"sha256-${sha256}.sha256"`,
        'x-content-type-options': 'nosniff',
      },
      body: Buffer.from(body),
    });
  });

  it('refuses other methods with 405 and Allow', async () => {
    expect(await answer('/cli/covgate.tgz', { method: 'POST', body: 'x' })).toEqual({
      status: 405,
      headers: {
        allow: 'GET, HEAD',
        'cache-control': 'no-store',
        'content-type': 'application/json',
      },
      body: Buffer.from('{"error":"method not allowed"}'),
    });
  });

  it('answers 404 in the API shape when the build has no tarball', async () => {
    const missing = await answer('/cli/covgate.tgz', {}, join(dir, 'absent.tgz'));
    expect(missing?.status).toBe(404);
    expect(missing?.body.toString()).toBe(
      '{"error":"this server was built without the CLI tarball"}',
    );
  });

  it('leaves every other path to the next handler', async () => {
    for (const path of ['/cli/', '/cli/covgate.tgz/x', '/cli/other.tgz', '/v1/session']) {
      expect(await answer(path), path).toBeUndefined();
    }
  });
});
