import { parse as parseCookieHeader } from 'cookie';

/** Where a credential came from; cookie credentials need CSRF checks on unsafe methods. */
export type Credential = { source: 'bearer' | 'cookie'; value: string };

const BEARER = /^Bearer +([^\s]+) *$/i;

/** The Bearer value of an `Authorization` header, or null. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get('authorization');
  if (header === null) return null;
  return BEARER.exec(header)?.[1] ?? null;
}

/** A cookie's value from the request, or null. */
export function cookieValue(request: Request, name: string): string | null {
  const header = request.headers.get('cookie');
  if (header === null) return null;
  return parseCookieHeader(header)[name] ?? null;
}

/** The request's credential: the `Authorization: Bearer` value first, else the session cookie. */
export function findCredential(request: Request, sessionCookieName: string): Credential | null {
  const bearer = bearerToken(request);
  if (bearer !== null) return { source: 'bearer', value: bearer };
  if (request.headers.has('authorization')) return { source: 'bearer', value: '' };
  const cookie = cookieValue(request, sessionCookieName);
  return cookie === null ? null : { source: 'cookie', value: cookie };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Methods that change state and therefore need CSRF protection under cookie auth. */
export function isUnsafeMethod(method: string): boolean {
  return !SAFE_METHODS.has(method);
}
