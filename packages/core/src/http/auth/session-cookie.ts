import { serialize } from 'cookie';
import type { ApiSettings } from '../services.js';

/** Base name of the session cookie; `__Host-` is prefixed when cookies are Secure. */
export const SESSION_COOKIE_BASE_NAME = 'covgate_session';

/** The session cookie's name under these settings. */
export function sessionCookieName(secure: boolean): string {
  return secure ? `__Host-${SESSION_COOKIE_BASE_NAME}` : SESSION_COOKIE_BASE_NAME;
}

/** `Set-Cookie` value that stores a session token (HttpOnly, SameSite=Lax, Path=/). */
export function sessionCookie(settings: ApiSettings, token: string, maxAgeSeconds: number): string {
  return serialize(settings.sessionCookieName, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: settings.secureCookies,
    maxAge: maxAgeSeconds,
  });
}

/** `Set-Cookie` value that clears the session cookie. */
export function clearedSessionCookie(settings: ApiSettings): string {
  return serialize(settings.sessionCookieName, '', {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: settings.secureCookies,
    maxAge: 0,
    expires: new Date(0),
  });
}
