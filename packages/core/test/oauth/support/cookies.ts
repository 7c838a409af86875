/** The `Set-Cookie` values of a response. */
export function setCookies(response: Response): string[] {
  return response.headers.getSetCookie();
}

/** The `Set-Cookie` value of the cookie called `name`, or undefined. */
export function setCookie(response: Response, name: string): string | undefined {
  return setCookies(response).find((cookie) => cookie.startsWith(`${name}=`));
}

/** `name=value` of a `Set-Cookie` value, ready for a `Cookie` header. */
export function cookiePair(setCookieValue: string): string {
  return setCookieValue.split(';', 1)[0] as string;
}
