import { createHash } from 'node:crypto';
import { makeBadge } from 'badge-maker';
import { z } from 'zod';
import { COMPONENT } from '../../executions/component.js';
import {
  type PercentPlaces,
  truncateDecimal,
  truncateToHundredths,
} from '../../numbers/truncate-decimal.js';
import { ApiError } from '../api-error.js';
import { emptyReply, textReply } from '../reply.js';
import type { RouteHandler } from '../services.js';

const badgeQuery = z.object({
  branch: z.string().min(1).max(255).default('main'),
  precision: z
    .enum(['0', '1', '2'])
    .default('0')
    .transform((places) => Number(places) as PercentPlaces),
  style: z.enum(['flat', 'flat-square', 'for-the-badge', 'plastic']).default('flat'),
  component: COMPONENT.optional(),
});

/**
 * Badge colour of a coverage percentage (>= 80 green, 60-79.99 yellow, < 60 red), judged on
 * the percentage truncated to hundredths like everything covgate shows: 79.996 is yellow.
 */
export function badgeColor(coverage: number): 'green' | 'yellow' | 'red' {
  const hundredths = truncateToHundredths(coverage);
  if (hundredths >= 8000) return 'green';
  if (hundredths >= 6000) return 'yellow';
  return 'red';
}

const CACHE_CONTROL = 'public, max-age=60';

/**
 * Badges are embedded in pages of other sites (READMEs, dashboards). Set explicitly, so that
 * a `same-origin` policy a host application's middleware set earlier (helmet's default) is
 * replaced rather than kept: Chromium refuses a cross-site image under `same-origin`.
 */
const RESOURCE_POLICY = 'cross-origin';

/** `If-None-Match` semantics: a list of tags, weak comparison, or `*`. */
function matchesEtag(header: string | null, etag: string): boolean {
  if (header === null) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*');
}

/**
 * `GET /v1/badge/{org}/{repo}[?component=]`: no authentication; with `component`, the latest
 * run of that monorepo component, else of the runs without one. An unknown organisation or repository
 * renders exactly like a repository without data (grey `unknown`), so the badge cannot be
 * used to enumerate organisations or repositories.
 */
export const getBadge: RouteHandler = async (scope) => {
  const parsed = badgeQuery.safeParse(Object.fromEntries(scope.query));
  if (!parsed.success) {
    throw new ApiError(400, `invalid parameter: ${String(parsed.error.issues[0]?.path[0])}`);
  }
  const { branch, precision, style, component } = parsed.data;
  const { store } = scope.services;
  const org = await store.findOrganisationBySlug(scope.params.org as string);
  const latest = org
    ? await store.findLatestExecution(
        org.id,
        scope.params.repo as string,
        branch,
        component ?? null,
      )
    : null;
  const svg = makeBadge({
    label: 'coverage',
    // Truncated, never rounded up: a 79.99 % run must not read as a green-looking 80%. A
    // commit's report still waiting for parts has no figure of the commit yet.
    message: !latest
      ? 'unknown'
      : latest.outcome === 'pending'
        ? 'pending'
        : `${truncateDecimal(latest.coverage, precision)}%`,
    color: latest && latest.outcome !== 'pending' ? badgeColor(latest.coverage) : 'lightgrey',
    style,
  });
  const etag = `"${createHash('sha256').update(svg).digest('base64url').slice(0, 27)}"`;
  const headers = {
    'cache-control': CACHE_CONTROL,
    'cross-origin-resource-policy': RESOURCE_POLICY,
    etag,
  };
  if (matchesEtag(scope.request.headers.get('if-none-match'), etag)) {
    return emptyReply(304, headers);
  }
  return textReply(200, svg, { ...headers, 'content-type': 'image/svg+xml; charset=utf-8' });
};
