import { describe, expect, it } from 'vitest';
import { bearer, ingest, sendJson } from './contract-helpers.js';
import { type HttpContractOptions, useContractServer } from './harness.js';
import { teamWithToken } from './team-setup.js';

/**
 * A repository's code-host URL: `web_url` of `/v1/repos/settings`, set by `PATCH` or, while
 * none was ever set, by a run's `repo_url`; shown by the settings and the headline.
 */
export function repoWebUrlContract(options: HttpContractOptions): void {
  describe("repository's code-host URL", () => {
    const ctx = useContractServer(options);

    const setup = async () => {
      const { org, token } = await teamWithToken(ctx);
      const ingestApp = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
        ingest(ctx, token, { repo: 'app', branch: 'main', coverage: 50, ...body }, headers);
      const settings = async () => {
        const response = await ctx.request(`/v1/repos/settings?org=${org.slug}&repo=app`, {
          headers: bearer(token),
        });
        expect(response.status).toBe(200);
        return response.json();
      };
      const change = (body: Record<string, unknown>) =>
        sendJson(ctx, 'PATCH', '/v1/repos/settings', token, { repo: 'app', ...body });
      const headline = async () =>
        (
          (await (
            await ctx.request(`/v1/repos/headline?org=${org.slug}&repo=app`, {
              headers: bearer(token),
            })
          ).json()) as { web_url: string | null }
        ).web_url;
      return { ingest: ingestApp, settings, change, headline };
    };
    const shown = (webUrl: string | null, patchTarget: number | null = null) => ({
      repo: 'app',
      patch_target: patchTarget,
      effective_patch_target: patchTarget ?? 80,
      web_url: webUrl,
      expected_parts: null,
      parts_deadline_minutes: null,
      effective_parts_deadline_minutes: 60,
      carryforward_parts: null,
      ci_trust: [],
    });

    it("keeps the first run's repo_url, normalised, and no later one", async () => {
      const { ingest, settings, headline } = await setup();
      expect((await ingest({})).status).toBe(201);
      expect(await settings()).toEqual(shown(null));
      expect((await ingest({ repo_url: 'HTTPS://GitHub.com/acme/app/' })).status).toBe(201);
      expect(await settings()).toEqual(shown('https://github.com/acme/app'));
      expect(await headline()).toBe('https://github.com/acme/app');
      expect((await ingest({ repo_url: 'https://gitlab.com/acme/app' })).status).toBe(201);
      expect(await settings()).toEqual(shown('https://github.com/acme/app'));
    });

    it("lets a PATCH set, keep and remove the URL, after which runs' repo_url change nothing", async () => {
      const { ingest, settings, change } = await setup();
      await ingest({ repo_url: 'https://github.com/acme/old' });
      const set = await change({ web_url: 'https://github.com/acme/app' });
      expect(set.status).toBe(200);
      expect(await set.json()).toEqual(shown('https://github.com/acme/app'));
      // A field left out keeps its value.
      const target = await change({ patch_target: 90 });
      expect(await target.json()).toEqual(shown('https://github.com/acme/app', 90));
      const removed = await change({ web_url: null });
      expect(await removed.json()).toEqual(shown(null, 90));
      await ingest({ repo_url: 'https://github.com/acme/again' });
      expect(await settings()).toEqual(shown(null, 90));
    });

    it('refuses a URL that is not a plain http(s) address of a repository, and stores nothing', async () => {
      const { ingest, settings, change } = await setup();
      for (const url of [
        'ftp://github.com/acme/app',
        'https://token:x-oauth@github.com/acme/app',
        'https://github.com/acme/app?tab=1',
        'https://github.com/acme/app#readme',
        `https://github.com/${'a'.repeat(500)}`,
        'not a url',
      ]) {
        const patched = await change({ web_url: url });
        expect(patched.status, url).toBe(400);
        expect(await patched.json()).toEqual({ error: 'invalid parameter: web_url' });
        const posted = await ingest({ repo_url: url });
        expect(posted.status, url).toBe(400);
        expect(await posted.json()).toEqual({ error: 'invalid parameter: repo_url' });
      }
      const nothing = await change({});
      expect(nothing.status).toBe(400);
      expect(await nothing.json()).toEqual({
        error:
          'missing required parameter: patch_target, web_url, expected_parts, parts_deadline_minutes, carryforward_parts or ci_trust',
      });
      expect(await settings()).toEqual(shown(null));
    });

    it('replays a retry whose repo_url differs: the URL is not part of the run', async () => {
      const { ingest, settings } = await setup();
      const headers = { 'idempotency-key': 'web-url-retry' };
      const first = await ingest({ repo_url: 'https://github.com/acme/app' }, headers);
      expect(first.status).toBe(201);
      const again = await ingest({ repo_url: 'https://github.com/acme/other' }, headers);
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.json()).toEqual(await first.json());
      expect(await settings()).toEqual(shown('https://github.com/acme/app'));
    });
  });
}
