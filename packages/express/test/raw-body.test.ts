import { createFakeCore, sign } from '@covgate/test-support/fake-core';
import { listenForTest } from '@covgate/test-support/http-server';
import type { Express } from 'express';
import { describe, expect, it } from 'vitest';
import { BodyAlreadyConsumedError, covgate, covgateRawBody } from '../src/index.js';
import { expressVersions } from './support/express-versions.js';

// Odd spacing and an escaped "é": any re-serialisation changes these bytes.
const PAYLOAD = '{"a":1,  "b":"\\u00e9"}';

describe.each(expressVersions)('$name', ({ express, major, version }) => {
  it('runs on the major it names', () => {
    expect(version.split('.')[0]).toBe(major);
  });

  async function serveApp(build: (app: Express, reports: unknown[]) => void): Promise<{
    origin: string;
    reports: unknown[];
  }> {
    const reports: unknown[] = [];
    const app = express();
    build(app, reports);
    app.post('/host/json', (req, res) => {
      res.json({ parsed: req.body });
    });
    const server = await listenForTest(app);
    return { origin: server.origin, reports };
  }

  function postWebhook(origin: string, signature = sign(PAYLOAD)): Promise<Response> {
    return fetch(`${origin}/v1/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature': signature },
      body: PAYLOAD,
    });
  }

  describe('raw body bytes for webhook signatures', () => {
    it('uses a payload that a re-serialisation would change', () => {
      expect(JSON.stringify(JSON.parse(PAYLOAD))).not.toBe(PAYLOAD);
    });

    it('verifies a signature when covgate runs before express.json()', async () => {
      const { origin } = await serveApp((app, reports) => {
        app.use(covgate(createFakeCore().api, { onError: (error) => reports.push(error) }));
        app.use(express.json());
      });
      const response = await postWebhook(origin);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ received: true });
    });

    it('still lets the host parse JSON on its own routes after covgate', async () => {
      const { origin } = await serveApp((app) => {
        app.use(covgate(createFakeCore().api));
        app.use(express.json());
      });
      const response = await fetch(`${origin}/host/json`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: PAYLOAD,
      });
      expect(await response.json()).toEqual({ parsed: { a: 1, b: 'é' } });
    });

    it('verifies a signature when express.json({ verify: covgateRawBody }) runs first', async () => {
      const { origin, reports } = await serveApp((app, reports) => {
        app.use(express.json({ verify: covgateRawBody }));
        app.use(covgate(createFakeCore().api, { onError: (error) => reports.push(error) }));
      });
      expect((await postWebhook(origin)).status).toBe(200);
      expect(reports).toEqual([]);
    });

    it('verifies a signature when express.raw() ran first', async () => {
      const { origin } = await serveApp((app) => {
        app.use(express.raw({ type: '*/*' }));
        app.use(covgate(createFakeCore().api));
      });
      expect((await postWebhook(origin)).status).toBe(200);
    });

    it('still refuses a wrong signature over raw bytes', async () => {
      const { origin } = await serveApp((app) => {
        app.use(express.json({ verify: covgateRawBody }));
        app.use(covgate(createFakeCore().api));
      });
      const response = await postWebhook(origin, sign(JSON.stringify(JSON.parse(PAYLOAD))));
      expect(response.status).toBe(401);
    });

    it.each([
      ['express.json()', () => express.json()],
      ['express.text()', () => express.text({ type: '*/*' })],
    ])(
      'answers 500 and explains, never re-serialising, when %s ate the body without raw bytes',
      async (_name, parser) => {
        const core = createFakeCore();
        const { origin, reports } = await serveApp((app, reports) => {
          app.use(parser());
          app.use(covgate(core.api, { onError: (error) => reports.push(error) }));
        });
        const response = await postWebhook(origin);
        expect(response.status).toBe(500);
        expect(await response.text()).toBe('{"error":"internal error"}');
        expect(core.seen).toHaveLength(0);
        expect(reports).toHaveLength(1);
        expect(reports[0]).toBeInstanceOf(BodyAlreadyConsumedError);
        expect((reports[0] as Error).message).toBe(
          'request body already consumed by a body parser; install covgate before express.json() or pass verify: covgateRawBody',
        );
      },
    );

    it('serves bodiless requests normally after a body parser', async () => {
      const core = createFakeCore();
      const { origin, reports } = await serveApp((app, reports) => {
        app.use(express.json());
        app.use(covgate(core.api, { onError: (error) => reports.push(error) }));
      });
      expect((await fetch(`${origin}/health`)).status).toBe(200);
      const emptyPost = await fetch(`${origin}/v1/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': '0' },
      });
      expect(emptyPost.status).toBe(200);
      expect(reports).toEqual([]);
    });
  });
});
