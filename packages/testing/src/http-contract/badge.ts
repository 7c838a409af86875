import { describe, expect, it } from 'vitest';
import { sendJson } from './contract-helpers.js';
import { type ContractContext, type HttpContractOptions, useContractServer } from './harness.js';
import { useTeamWithToken } from './team-setup.js';

/** Fill colours badge-maker renders for the named colours the badge uses. */
const FILL = {
  green: '#67ac09',
  yellow: '#d8b800',
  red: '#dd4343',
  lightgrey: '#939393',
} as const;

/** The message part's fill colour: the only one of {@link FILL} in the SVG. */
function messageColour(svg: string): keyof typeof FILL {
  const found = (Object.keys(FILL) as (keyof typeof FILL)[]).filter((name) =>
    svg.includes(`fill="${FILL[name]}"`),
  );
  expect(found).toHaveLength(1);
  return found[0] as keyof typeof FILL;
}

/** The `aria-label` of the badge: `coverage: <message>`. */
function label(svg: string): string | undefined {
  return /aria-label="([^"]*)"/.exec(svg)?.[1];
}

function badge(ctx: ContractContext, path: string, headers: Record<string, string> = {}) {
  return ctx.request(`/v1/badge/${path}`, { headers });
}

/** What a client can observe of a badge response. */
async function snapshot(response: Response) {
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    cacheControl: response.headers.get('cache-control'),
    etag: response.headers.get('etag'),
    body: await response.text(),
  };
}

/** `GET /v1/badge/{org}/{repo}`: public SVG coverage badge. */
export function badgeContract(options: HttpContractOptions): void {
  describe('badge', () => {
    const ctx = useContractServer(options);
    const team = useTeamWithToken(ctx);
    const record = async (repo: string, coverage: number, branch = 'main') => {
      const response = await sendJson(ctx, 'POST', '/v1/executions', team.token, {
        repo,
        branch,
        coverage,
      });
      expect(response.status).toBe(201);
    };

    it('serves an SVG with Cache-Control: public, max-age=60, Cross-Origin-Resource-Policy: cross-origin and an ETag, without authentication', async () => {
      const { org } = team;
      await record('app', 84.13);
      const response = await badge(ctx, `${org.slug}/app`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^image\/svg\+xml(;|$)/);
      expect(response.headers.get('cache-control')).toBe('public, max-age=60');
      // Pages of other sites show it; helmet's `same-origin` would make Chromium refuse it.
      expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
      const svg = await response.text();
      expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      expect(label(svg)).toBe('coverage: 84%');
      expect(messageColour(svg)).toBe('green');
    });

    it('answers 304 with no body to If-None-Match with the current ETag, 200 to any other', async () => {
      const { org } = team;
      await record('cached', 84.13);
      const first = await badge(ctx, `${org.slug}/cached`);
      const etag = first.headers.get('etag') as string;
      const svg = await first.text();

      const notModified = await badge(ctx, `${org.slug}/cached`, { 'if-none-match': etag });
      expect(notModified.status).toBe(304);
      expect(await notModified.text()).toBe('');
      expect(notModified.headers.get('etag')).toBe(etag);
      expect(notModified.headers.get('cache-control')).toBe('public, max-age=60');
      expect(notModified.headers.get('cross-origin-resource-policy')).toBe('cross-origin');

      for (const other of ['"other"', etag.slice(1, -1), `${etag.slice(0, -1)}x"`]) {
        const response = await badge(ctx, `${org.slug}/cached`, { 'if-none-match': other });
        expect(response.status, other).toBe(200);
        expect(await response.text()).toBe(svg);
      }

      await record('cached', 50);
      const changed = await badge(ctx, `${org.slug}/cached`, { 'if-none-match': etag });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect(label(await changed.text())).toBe('coverage: 50%');
    });

    it('shows the coverage truncated to whole percent, or to precision=1|2 decimals', async () => {
      const { org } = team;
      await record('precise', 84.13);
      for (const [query, message] of [
        ['', '84%'],
        ['?precision=0', '84%'],
        ['?precision=1', '84.1%'],
        ['?precision=2', '84.13%'],
      ]) {
        const response = await badge(ctx, `${org.slug}/precise${query}`);
        expect(label(await response.text()), query).toBe(`coverage: ${message}`);
      }
      await record('half', 99.5);
      expect(label(await (await badge(ctx, `${org.slug}/half?precision=1`)).text())).toBe(
        'coverage: 99.5%',
      );
      expect(label(await (await badge(ctx, `${org.slug}/half`)).text())).toBe('coverage: 99%');
    });

    it('never rounds up: a 79.996 % run is a yellow 79%, 79.9% and 79.99%', async () => {
      const { org } = team;
      await record('almost', 79.996);
      for (const [query, message] of [
        ['', '79%'],
        ['?precision=1', '79.9%'],
        ['?precision=2', '79.99%'],
      ]) {
        const svg = await (await badge(ctx, `${org.slug}/almost${query}`)).text();
        expect(label(svg), query).toBe(`coverage: ${message}`);
        expect(messageColour(svg), query).toBe('yellow');
      }
      await record('precise', 99.936);
      const svg = await (await badge(ctx, `${org.slug}/precise?precision=2`)).text();
      expect(label(svg)).toBe('coverage: 99.93%');
    });

    it('colours green from 80, yellow from 60 to 79.99 and red below 60', async () => {
      const { org } = team;
      const cases: [number, keyof typeof FILL][] = [
        [100, 'green'],
        [80, 'green'],
        [79.99, 'yellow'],
        [60, 'yellow'],
        [59.99, 'red'],
        [0, 'red'],
      ];
      for (const [coverage, colour] of cases) {
        const repo = `colour-${String(coverage).replace('.', '-')}`;
        await record(repo, coverage);
        const svg = await (await badge(ctx, `${org.slug}/${repo}?precision=2`)).text();
        expect(messageColour(svg), String(coverage)).toBe(colour);
        expect(label(svg)).toBe(`coverage: ${coverage.toFixed(2)}%`);
      }
    });

    it('shows the latest run of the branch even when that run failed', async () => {
      const { org } = team;
      await record('latest', 90);
      await record('latest', 70);
      const svg = await (await badge(ctx, `${org.slug}/latest`)).text();
      expect(label(svg)).toBe('coverage: 70%');
      expect(messageColour(svg)).toBe('yellow');
    });

    it('renders grey "unknown" for a repository without data', async () => {
      const { org } = team;
      const response = await badge(ctx, `${org.slug}/never-run`);
      expect(response.status).toBe(200);
      const svg = await response.text();
      expect(label(svg)).toBe('coverage: unknown');
      expect(messageColour(svg)).toBe('lightgrey');
    });

    it('answers an unknown organisation or repository byte for byte like a repository without data', async () => {
      const { org } = team;
      await record('exists', 84.13, 'dev');
      const reference = await snapshot(await badge(ctx, `${org.slug}/exists`));
      expect(reference.status).toBe(200);
      for (const path of [
        `${org.slug}/no-such-repo`,
        `no-such-org-${org.slug}/exists`,
        `${org.slug.toUpperCase()}/exists`,
        `${org.id}/exists`,
        `${org.slug}/Exists`,
      ]) {
        expect(await snapshot(await badge(ctx, path)), path).toEqual(reference);
      }
      const query = '?style=for-the-badge&precision=2';
      const styled = await snapshot(await badge(ctx, `${org.slug}/exists${query}`));
      expect(await snapshot(await badge(ctx, `no-such-org/exists${query}`))).toEqual(styled);
    });

    it('shows the branch given by ?branch, main by default', async () => {
      const { org } = team;
      await record('branched', 84.13);
      await record('branched', 42, 'feature/x');
      expect(label(await (await badge(ctx, `${org.slug}/branched`)).text())).toBe('coverage: 84%');
      expect(label(await (await badge(ctx, `${org.slug}/branched?branch=main`)).text())).toBe(
        'coverage: 84%',
      );
      const feature = await (await badge(ctx, `${org.slug}/branched?branch=feature%2Fx`)).text();
      expect(label(feature)).toBe('coverage: 42%');
      expect(messageColour(feature)).toBe('red');
      const missing = await (await badge(ctx, `${org.slug}/branched?branch=Main`)).text();
      expect(label(missing)).toBe('coverage: unknown');
    });

    it('renders each style: flat (default), flat-square, for-the-badge and plastic', async () => {
      const { org } = team;
      await record('styled', 84.13);
      const render = async (query: string) =>
        (await badge(ctx, `${org.slug}/styled${query}`)).text();
      const byDefault = await render('');
      const flat = await render('?style=flat');
      const flatSquare = await render('?style=flat-square');
      const forTheBadge = await render('?style=for-the-badge');
      const plastic = await render('?style=plastic');

      expect(byDefault).toBe(flat);
      expect(flat).toMatch(/height="20"/);
      expect(flat).toMatch(/rx="3"/);
      expect(flatSquare).toMatch(/shape-rendering="crispEdges"/);
      expect(flatSquare).not.toMatch(/rx="/);
      expect(forTheBadge).toMatch(/height="28"/);
      expect(label(forTheBadge)).toBe('COVERAGE: 84%');
      expect(plastic).toMatch(/height="18"/);
      expect(new Set([flat, flatSquare, forTheBadge, plastic]).size).toBe(4);
      for (const svg of [flat, flatSquare, forTheBadge, plastic])
        expect(messageColour(svg)).toBe('green');
    });

    it('answers 400 invalid parameter: style or precision for values outside the lists', async () => {
      const { org } = team;
      await record('strict', 84.13);
      for (const style of ['FLAT', 'social', 'flat ', '', 'flat,plastic']) {
        const response = await badge(ctx, `${org.slug}/strict?style=${encodeURIComponent(style)}`);
        expect(response.status, style).toBe(400);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await response.json()).toEqual({ error: 'invalid parameter: style' });
      }
      for (const precision of ['3', '-1', '1.5', 'a', '', '01', ' 1']) {
        const response = await badge(
          ctx,
          `${org.slug}/strict?precision=${encodeURIComponent(precision)}`,
        );
        expect(response.status, precision).toBe(400);
        expect(await response.json()).toEqual({ error: 'invalid parameter: precision' });
      }
      const unknownOrg = await badge(ctx, 'no-such-org/strict?style=bogus');
      expect(unknownOrg.status).toBe(400);
    });
  });
}
