/** One `Set-Cookie` header, split into its value and its attributes. */
export interface SetCookie {
  name: string;
  value: string;
  /** Attribute names in lowercase; flags such as `httponly` map to `true`. */
  attributes: Map<string, string | true>;
}

/** The response's `Set-Cookie` headers by cookie name. */
export function setCookies(response: Response): Map<string, SetCookie> {
  const cookies = new Map<string, SetCookie>();
  for (const header of response.headers.getSetCookie()) {
    const [pair = '', ...rest] = header.split(';').map((part) => part.trim());
    const equals = pair.indexOf('=');
    const name = pair.slice(0, equals);
    const attributes = new Map<string, string | true>();
    for (const attribute of rest) {
      const at = attribute.indexOf('=');
      if (at < 0) attributes.set(attribute.toLowerCase(), true);
      else attributes.set(attribute.slice(0, at).toLowerCase(), attribute.slice(at + 1));
    }
    cookies.set(name, { name, value: decodeURIComponent(pair.slice(equals + 1)), attributes });
  }
  return cookies;
}

/** A `Cookie` request header carrying one cookie, as a browser would send it. */
export function cookieHeader(cookie: SetCookie): string {
  return `${cookie.name}=${encodeURIComponent(cookie.value)}`;
}
