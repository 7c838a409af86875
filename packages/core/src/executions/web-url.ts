/** Longest repository URL covgate keeps, in characters of its normalised form. */
export const MAX_WEB_URL_LENGTH = 512;

/**
 * A repository's URL on its code host in the form covgate keeps (the WHATWG URL parser's
 * `href`, so `HTTPS://GitHub.com/acme/api` is `https://github.com/acme/api`), or null when it
 * is not one: not `http:` or `https:`, with a user name or password, a query or a fragment,
 * or longer than {@link MAX_WEB_URL_LENGTH} once normalised. A trailing `/` is dropped, so the
 * dashboard can append `/commit/<sha>`.
 */
export function normaliseWebUrl(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username !== '' || url.password !== '') return null;
  // `?` and `#` with nothing after them leave `search` and `hash` empty: look at the text.
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(value)) return null;
  const href = url.href.replace(/\/+$/, '');
  return href.length > MAX_WEB_URL_LENGTH ? null : href;
}
