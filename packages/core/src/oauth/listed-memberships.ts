import type { OrganisationMembership } from './code-host.js';

/** At most this many pages of a user's organisations are read at a sign-in. */
export const MAX_MEMBERSHIP_PAGES = 20;

/** How a code host lists the organisations (GitLab: groups) of the signed-in user. */
export interface MembershipListing {
  /** The first page: the host's endpoint with its filters and page size. */
  firstPage: URL;
  /** The page size asked for: a page this full that names no next page may not be the last. */
  pageSize: number;
  /** The lower-case path of an entry of a page, or null for an entry without one. */
  pathOf(entry: unknown): string | null;
}

/**
 * Answers whether the user of `accessToken` belongs to each of `asked` (lower-case paths) from
 * the host's list of their organisations, read page after page until every asked one is found
 * or the list ends: listed is `member`; not listed in a whole list is `not-member`. When a
 * page is refused (a missing scope, a rate limit), fails, cannot be read or the pages run out
 * ({@link MAX_MEMBERSHIP_PAGES}), those not found yet are `unknown`: a list read in part says
 * nothing of what it did not show.
 *
 * The next page is the number the host names (`x-next-page`, else the `page` of the `Link`
 * header's `rel="next"`), asked of the same endpoint: a URL in a header is never followed, so
 * the token goes nowhere else.
 */
export async function listedMemberships(
  listing: MembershipListing,
  asked: readonly string[],
  accessToken: string,
  signal: AbortSignal,
): Promise<ReadonlyMap<string, OrganisationMembership>> {
  const wanted = new Set(asked);
  const found = new Set<string>();
  const answer = (otherwise: OrganisationMembership) =>
    new Map(asked.map((path) => [path, found.has(path) ? 'member' : otherwise] as const));

  let page: number | null = 1;
  for (let read = 0; page !== null; read++) {
    if (read === MAX_MEMBERSHIP_PAGES) return answer('unknown');
    const url = new URL(listing.firstPage);
    url.searchParams.set('page', String(page));
    const response = await fetch(url, {
      headers: { accept: 'application/json', authorization: `Bearer ${accessToken}` },
      signal,
    }).catch(() => null);
    if (response === null) return answer('unknown');
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return answer('unknown');
    }
    const entries: unknown = await response.json().catch(() => null);
    if (!Array.isArray(entries)) return answer('unknown');
    for (const entry of entries) {
      const path = listing.pathOf(entry);
      if (path !== null && wanted.has(path)) found.add(path);
    }
    if (found.size === wanted.size) break;
    const next = nextPageNumber(response.headers);
    if (next === null && !namesLastPage(response.headers) && entries.length >= listing.pageSize) {
      // A full page and no word of another (a proxy that drops the paging headers, say): the
      // list may go on, so what it did not show stays unknown.
      return answer('unknown');
    }
    page = next !== null && next > page ? next : null;
  }
  return answer('not-member');
}

/** The next page's number: GitLab's `x-next-page`, else the `page` of `Link`'s `rel="next"`. */
function nextPageNumber(headers: Headers): number | null {
  const header = headers.get('x-next-page');
  if (header !== null) return pageNumber(header.trim());
  for (const part of (headers.get('link') ?? '').split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (!match) continue;
    try {
      return pageNumber(new URL(match[1] as string).searchParams.get('page') ?? '');
    } catch {
      return null;
    }
  }
  return null;
}

/** Whether the host said this is the last page: GitLab's empty `x-next-page`. */
function namesLastPage(headers: Headers): boolean {
  return headers.get('x-next-page')?.trim() === '';
}

function pageNumber(text: string): number | null {
  return /^[1-9][0-9]{0,5}$/.test(text) ? Number(text) : null;
}

/** The lower-case text of `entry[field]`, or null when it has none. */
export function pathField(entry: unknown, field: string): string | null {
  if (typeof entry !== 'object' || entry === null) return null;
  const value = (entry as Record<string, unknown>)[field];
  return typeof value === 'string' && value !== '' ? value.toLowerCase() : null;
}
