import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardContentSecurityPolicy, serveDashboard } from '../src/index.js';

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";
const INDEX = `<!doctype html><html><head><base href="/"><meta name="covgate-config" content="{}"><script type="module" src="./assets/index-Ab12Cd34.js"></script></head><body><div id="app"></div></body></html>`;
const SCRIPT = `console.log(${JSON.stringify('covgate '.repeat(200))});`;

let appDir: string;

beforeAll(async () => {
  appDir = await mkdtemp(join(tmpdir(), 'covgate-dashboard-'));
  await mkdir(join(appDir, 'assets'));
  await writeFile(join(appDir, 'index.html'), INDEX);
  await writeFile(join(appDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(join(appDir, 'assets', 'index-Ab12Cd34.js'), SCRIPT);
});

afterAll(async () => {
  await rm(appDir, { recursive: true, force: true });
});

const get = (handler: ReturnType<typeof serveDashboard>, path: string, init: RequestInit = {}) =>
  handler(new Request(`http://localhost:8080${path}`, init));

function securityHeaders(response: Response, csp = CSP) {
  expect(response.headers.get('content-security-policy')).toBe(csp);
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('referrer-policy')).toBe('same-origin');
  expect(response.headers.get('x-frame-options')).toBe('DENY');
}

/** What a served file answers: status, type and caching, and the headers every answer carries. */
function expectServed(response: Response, status: number, type: string, cacheControl: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe(type);
  expect(response.headers.get('cache-control')).toBe(cacheControl);
  securityHeaders(response);
}

describe('serveDashboard', () => {
  const dashboard = () => serveDashboard({ basePath: '/dashboard', appDir, codeHosts: ['github'] });

  it('leaves every path outside the base path to the caller', async () => {
    const handler = dashboard();
    expect(await get(handler, '/v1/executions?org=a&repo=b')).toBeUndefined();
    expect(await get(handler, '/dashboards')).toBeUndefined();
    expect(await get(handler, '/')).toBeUndefined();
    expect(await get(handler, '/v1?next=/dashboard/')).toBeUndefined();
    expect(await get(handler, '/x#/dashboard/')).toBeUndefined();
  });

  it('reads the path without the query or fragment', async () => {
    const response = (await get(dashboard(), '/dashboard/tokens?tab=new#top')) as Response;
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('serves index.html with the base href and configuration, never cached', async () => {
    const response = (await get(dashboard(), '/dashboard/')) as Response;
    expectServed(response, 200, 'text/html; charset=utf-8', 'no-store');
    expect(await response.text()).toBe(
      INDEX.replace('<base href="/">', '<base href="/dashboard/">').replace(
        '<meta name="covgate-config" content="{}">',
        '<meta name="covgate-config" content="{&quot;api&quot;:&quot;&quot;,&quot;codeHosts&quot;:[&quot;github&quot;],&quot;basePath&quot;:&quot;/dashboard&quot;}">',
      ),
    );
  });

  it('writes the public API URL for the onboarding snippets into the configuration, without a trailing slash', async () => {
    const handler = serveDashboard({
      basePath: '/dashboard',
      appDir,
      codeHosts: [],
      publicApiUrl: 'https://cov.example.com/',
    });
    const html = await ((await get(handler, '/dashboard/')) as Response).text();
    expect(html).toContain(
      '<meta name="covgate-config" content="{&quot;api&quot;:&quot;&quot;,&quot;codeHosts&quot;:[],&quot;basePath&quot;:&quot;/dashboard&quot;,&quot;publicApi&quot;:&quot;https://cov.example.com&quot;}">',
    );
  });

  it('answers client routes with index.html', async () => {
    const handler = dashboard();
    const index = await ((await get(handler, '/dashboard/')) as Response).text();
    for (const path of [
      '/dashboard/tokens',
      '/dashboard/repos/web',
      '/dashboard/repos/a%2Fb',
      // A run's file page ends in the file's name, extension included.
      '/dashboard/repos/web/runs/exe_1/files/src%2Fcart%2Ftotal.ts',
      '/dashboard/repos/web/runs/exe_1/files/index.html',
    ]) {
      const response = (await get(handler, path)) as Response;
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.text()).toBe(index);
    }
  });

  it('serves hashed assets for a year, gzipped when accepted', async () => {
    const handler = dashboard();
    const plain = (await get(handler, '/dashboard/assets/index-Ab12Cd34.js')) as Response;
    expectServed(
      plain,
      200,
      'text/javascript; charset=utf-8',
      'public, max-age=31536000, immutable',
    );
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toBe('Accept-Encoding');
    expect(plain.headers.get('content-length')).toBe(String(SCRIPT.length));
    expect(await plain.text()).toBe(SCRIPT);

    const gzipped = (await get(handler, '/dashboard/assets/index-Ab12Cd34.js', {
      headers: { 'accept-encoding': 'br, gzip, deflate' },
    })) as Response;
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    const bytes = Buffer.from(await gzipped.arrayBuffer());
    expect(gzipped.headers.get('content-length')).toBe(String(bytes.length));
    expect(bytes.length).toBeLessThan(SCRIPT.length / 10);
    expect(gunzipSync(bytes).toString()).toBe(SCRIPT);

    const refused = (await get(handler, '/dashboard/assets/index-Ab12Cd34.js', {
      headers: { 'accept-encoding': 'gzip;q=0' },
    })) as Response;
    expect(refused.headers.get('content-encoding')).toBeNull();
  });

  it('serves unhashed files uncached', async () => {
    const response = (await get(dashboard(), '/dashboard/favicon.svg')) as Response;
    expectServed(response, 200, 'image/svg+xml', 'no-store');
  });

  it('answers 404 with the policy for a missing asset or file, never index.html', async () => {
    for (const path of [
      '/dashboard/assets/index-00000000.js',
      '/dashboard/assets/',
      '/dashboard/robots.txt',
      '/dashboard/%E0%A4%A',
      '/dashboard/assets/..%2Findex.html',
      // Not a run's file page: one segment too many.
      '/dashboard/repos/web/runs/exe_1/files/src/a.ts',
    ]) {
      const response = (await get(dashboard(), path)) as Response;
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      securityHeaders(response);
      expect(await response.text()).toBe('not found');
    }
  });

  it('redirects the bare base path to its trailing-slash form, keeping the query', async () => {
    const response = (await get(dashboard(), '/dashboard?x=1')) as Response;
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe('/dashboard/?x=1');
    securityHeaders(response);
  });

  it('refuses other methods with 405 and Allow', async () => {
    const response = (await get(dashboard(), '/dashboard/tokens', { method: 'POST' })) as Response;
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    securityHeaders(response);
  });

  it('answers HEAD with the headers and no body', async () => {
    const response = (await get(dashboard(), '/dashboard/', { method: 'HEAD' })) as Response;
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).toBe('');
  });

  it('adds an API on another origin to connect-src and img-src', async () => {
    const handler = serveDashboard({ appDir, apiBaseUrl: 'https://api.example.com/covgate/' });
    const response = (await get(handler, '/dashboard/')) as Response;
    const csp = dashboardContentSecurityPolicy('https://api.example.com');
    expect(csp).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https://api.example.com; connect-src 'self' https://api.example.com; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
    );
    securityHeaders(response, csp);
    expect(await response.text()).toContain(
      'content="{&quot;api&quot;:&quot;https://api.example.com/covgate&quot;,&quot;codeHosts&quot;:[&quot;github&quot;],&quot;basePath&quot;:&quot;/dashboard&quot;}"',
    );
  });

  it('serves at the root with basePath "/"', async () => {
    const handler = serveDashboard({ appDir, basePath: '/' });
    const response = (await get(handler, '/tokens')) as Response;
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<base href="/">');
  });

  it('fails clearly when the app folder has no index.html', async () => {
    const handler = serveDashboard({ appDir: join(appDir, 'assets') });
    await expect(get(handler, '/dashboard/')).rejects.toThrow(
      `@covgate/dashboard: no index.html in ${join(appDir, 'assets')} (is the package built?)`,
    );
  });
});

describe('serveDashboard with cliPackage', () => {
  const tarball = Buffer.from('a CLI tarball, or bytes standing in for one');
  const sha256 = createHash('sha256').update(tarball).digest('hex');
  let file: string;
  beforeAll(async () => {
    file = join(appDir, '..', `${appDir.split('/').pop()}-covgate.tgz`);
    await writeFile(file, tarball);
  });
  afterAll(async () => {
    await rm(file, { force: true });
  });

  it('serves the CLI where the wizard’s command fetches it: under the API’s URL', async () => {
    const handler = serveDashboard({ appDir, cliPackage: file });
    const download = (await get(handler, '/cli/covgate.tgz')) as Response;
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/gzip');
    expect(download.headers.get('etag')).toBe(`"sha256-${sha256}"`);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(tarball);
    const checksum = (await get(handler, '/cli/covgate.tgz.sha256')) as Response;
    expect(await checksum.text()).toBe(`${sha256}  covgate.tgz\n`);

    // The API under /api: `$COVGATE_URL/cli/covgate.tgz` is /api/cli/covgate.tgz.
    const mounted = serveDashboard({ appDir, apiBaseUrl: '/api', cliPackage: file });
    expect((await get(mounted, '/api/cli/covgate.tgz'))?.status).toBe(200);
    expect(await get(mounted, '/cli/covgate.tgz')).toBeUndefined();
    const elsewhere = serveDashboard({
      appDir,
      apiBaseUrl: 'https://api.example.com/v2/',
      cliPackage: file,
    });
    expect((await get(elsewhere, '/v2/cli/covgate.tgz'))?.status).toBe(200);
  });

  it('leaves the CLI’s path to the API without the option', async () => {
    expect(await get(serveDashboard({ appDir }), '/cli/covgate.tgz')).toBeUndefined();
  });
});
