import {
  createFakeCore,
  type Echo,
  echoOf,
  FAKE_COOKIES,
  type FakeCore,
} from '@covgate/test-support/fake-core';
import { headerLines, httpRequest } from '@covgate/test-support/http-client';
import { listenForTest } from '@covgate/test-support/http-server';
import { expectPayloadTooLarge, postZeros } from '@covgate/test-support/uploads';
import type { ErrorRequestHandler, Express } from 'express';
import { describe, expect, it, vi } from 'vitest';
import { type CovgateExpressOptions, covgate } from '../src/index.js';
import { expressVersions } from './support/express-versions.js';

describe.each(expressVersions)('$name', ({ express, major, version }) => {
  it('runs on the major it names', () => {
    expect(version.split('.')[0]).toBe(major);
  });

  interface Host {
    core: FakeCore;
    origin: string;
    hostErrors: unknown[];
  }

  /**
   * A host application: covgate mounted at `mount`, a host route on each side of it, and a
   * host error handler that records what reaches it.
   */
  async function host(
    mount: string,
    options: CovgateExpressOptions = {},
    before?: (app: Express) => void,
  ): Promise<Host> {
    const core = createFakeCore();
    const hostErrors: unknown[] = [];
    const app = express();
    before?.(app);
    app.use(mount, covgate(core.api, { onError: () => {}, ...options }));
    app.get('/coverage/other', (_req, res) => {
      res.json({ host: 'coverage/other' });
    });
    app.get('/other', (_req, res) => {
      res.json({ host: 'other' });
    });
    app.get('/v1/host-thing', (_req, res) => {
      res.json({ host: 'v1/host-thing' });
    });
    app.get('/boom', () => {
      throw new Error('host route failed');
    });
    const onHostError: ErrorRequestHandler = (error, _req, res, _next) => {
      hostErrors.push(error);
      res.status(599).json({ handledBy: 'host', message: (error as Error).message });
    };
    app.use(onHostError);
    const server = await listenForTest(app);
    return { core, origin: server.origin, hostErrors };
  }

  describe('covgate() for Express: routing', () => {
    it('hands the core its own path, query, method, headers and body under a mount prefix', async () => {
      const { origin } = await host('/coverage');
      const response = await fetch(`${origin}/coverage/v1/echo?org=acme&repo=r%20x`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-request-id': 'r-1' },
        body: '{"name":"ci"}',
      });
      const echo = await echoOf(response);
      expect(echo.method).toBe('PATCH');
      expect(echo.pathname).toBe('/v1/echo');
      expect(echo.search).toBe('?org=acme&repo=r%20x');
      expect(echo.headers['x-request-id']).toBe('r-1');
      expect(Buffer.from(echo.body!, 'base64').toString()).toBe('{"name":"ci"}');
    });

    it('answers /health at the root mount', async () => {
      const { origin } = await host('/');
      const echo = (await (await fetch(`${origin}/health`)).json()) as Echo;
      expect(echo.pathname).toBe('/health');
    });

    it.each([
      ['/coverage/other', 'coverage/other'],
      ['/other', 'other'],
    ])('passes %s, not a covgate path, on to the host route', async (path, expected) => {
      const { origin, core } = await host('/coverage');
      const response = await fetch(`${origin}${path}`);
      expect(await response.json()).toEqual({ host: expected });
      expect(core.seen).toHaveLength(0);
    });

    it('leaves a host route that looks like covgate alone when covgate is mounted elsewhere', async () => {
      const { origin, core } = await host('/coverage');
      expect(await (await fetch(`${origin}/v1/host-thing`)).json()).toEqual({
        host: 'v1/host-thing',
      });
      expect(core.seen).toHaveLength(0);
    });

    it('answers every path under its mount when exclusive, and only there', async () => {
      const { origin, core } = await host('/coverage', { exclusive: true });
      const response = await fetch(`${origin}/coverage/other`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: 'not found' });
      expect(new URL(core.seen[0]!.url).pathname).toBe('/other');
      expect(await (await fetch(`${origin}/other`)).json()).toEqual({ host: 'other' });
    });

    it('lets the core answer 404 for unknown paths under its own prefixes', async () => {
      const { origin } = await host('/coverage');
      const response = await fetch(`${origin}/coverage/v1/nothing-here`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: 'not found' });
    });

    it('passes TRACE, which covgate cannot represent, on to the host application', async () => {
      const { origin, core } = await host('/coverage');
      const response = await httpRequest(`${origin}/coverage/health`, { method: 'TRACE' });
      expect(response.status).toBe(404);
      expect(core.seen).toHaveLength(0);
    });

    it('passes the peer address, and follows the trust proxy setting of the app', async () => {
      const direct = await host('/coverage');
      const first = (await (
        await fetch(`${direct.origin}/coverage/v1/echo`, {
          headers: { 'x-forwarded-for': '203.0.113.9' },
        })
      ).json()) as Echo;
      expect(first.remoteAddress).toBe('127.0.0.1');

      const proxied = await host('/coverage', {}, (app) => app.set('trust proxy', 'loopback'));
      const second = (await (
        await fetch(`${proxied.origin}/coverage/v1/echo`, {
          headers: { 'x-forwarded-for': '203.0.113.9' },
        })
      ).json()) as Echo;
      expect(second.remoteAddress).toBe('203.0.113.9');
    });
  });

  describe('covgate() for Express: responses', () => {
    it('sends each Set-Cookie as its own header line, after those the host set', async () => {
      const { origin } = await host('/coverage', {}, (app) =>
        app.use((_req, res, next) => {
          res.cookie('host', 'h');
          next();
        }),
      );
      const response = await httpRequest(`${origin}/coverage/v1/cookies`);
      expect(headerLines(response.rawHeaders, 'set-cookie')).toEqual([
        'host=h; Path=/',
        ...FAKE_COOKIES,
      ]);
    });

    it('stops the response stream when the client goes away', async () => {
      const { origin, core } = await host('/coverage');
      const controller = new AbortController();
      const response = await fetch(`${origin}/coverage/v1/stalled`, { signal: controller.signal });
      await response.body!.getReader().read();
      controller.abort();
      await core.responseCancelled.happened;
      expect((await fetch(`${origin}/other`)).status).toBe(200);
    });

    it('lets the core answer 413 to a body over the limit', async () => {
      const { origin } = await host('/coverage', { maxBodyBytes: 64 });
      const response = await fetch(`${origin}/coverage/v1/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ padding: 'x'.repeat(64) }),
      });
      await expectPayloadTooLarge(response);
    });

    it('answers a 4 MiB upload with 413 under the default limit and keeps serving', async () => {
      const { origin } = await host('/coverage');
      const response = await postZeros(`${origin}/coverage/v1/echo`, 4 * 1024 * 1024);
      await expectPayloadTooLarge(response);
      expect((await fetch(`${origin}/other`)).status).toBe(200);
    });
  });

  describe('covgate() for Express: errors', () => {
    it('sends a failure of covgate to next(err), the Express way', async () => {
      const { origin, hostErrors } = await host('/coverage');
      const response = await fetch(`${origin}/coverage/v1/throw`);
      expect(response.status).toBe(599);
      expect(hostErrors).toEqual([
        expect.objectContaining({ message: expect.stringContaining('hunter2') }),
      ]);
    });

    it('leaves errors of host routes to the host error handler', async () => {
      const { origin, hostErrors, core } = await host('/');
      const response = await fetch(`${origin}/boom`);
      expect(await response.json()).toEqual({ handledBy: 'host', message: 'host route failed' });
      expect(hostErrors).toHaveLength(1);
      expect(core.seen).toHaveLength(0);
    });

    it('writes a [covgate] line to stderr by default when a parser ate the body', async () => {
      const log = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        const core = createFakeCore();
        const app = express();
        app.use(express.json());
        app.use(covgate(core.api));
        const server = await listenForTest(app);
        const response = await fetch(`${server.origin}/v1/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        expect(response.status).toBe(500);
        expect(log).toHaveBeenCalledWith('[covgate] request failed:', expect.any(Error));
      } finally {
        log.mockRestore();
      }
    });
  });
});
