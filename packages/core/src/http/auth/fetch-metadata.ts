/**
 * Readings of the Fetch Metadata request headers (`Sec-Fetch-*`) that browsers add to every
 * request. Clients that send none (scripts, link previewers, older browsers) read as "not a
 * browser navigation" and as "not cross-site".
 */

/**
 * Whether the request is a person's browser opening the URL as a page: a top-level `GET`
 * navigation (`Sec-Fetch-Mode: navigate`, `Sec-Fetch-Dest: document`) that is not a
 * prefetch or prerender. Link previewers and mail scanners send no such headers; a `HEAD`
 * (which link checkers send, whatever their headers) never opens a page.
 */
export function isDocumentNavigation(request: Request): boolean {
  if (request.method !== 'GET') return false;
  const { headers } = request;
  if (headers.get('sec-fetch-mode') !== 'navigate') return false;
  if (headers.get('sec-fetch-dest') !== 'document') return false;
  const purpose = `${headers.get('sec-purpose') ?? ''} ${headers.get('purpose') ?? ''}`;
  return !/prefetch|prerender/i.test(purpose);
}

/**
 * Whether a browser says the request comes from another site's page (`Sec-Fetch-Site:
 * cross-site` or `same-site`): a form on a foreign page posting here.
 */
export function isForeignSiteRequest(request: Request): boolean {
  const site = request.headers.get('sec-fetch-site');
  return site === 'cross-site' || site === 'same-site';
}
