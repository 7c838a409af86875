import { type SerializeOptions, serialize } from 'cookie';
import { LOGIN_STATE_TTL_SECONDS } from '../../oauth/login-state.js';
import type { ApiSettings } from '../services.js';

/** Name of the cookie that carries a login attempt between `/auth/{code_host}` and its callback. */
export const OAUTH_STATE_COOKIE = 'covgate_oauth_state';

/**
 * `Set-Cookie` value storing a sealed login state for {@link LOGIN_STATE_TTL_SECONDS}. Only
 * the OAuth routes need the cookie, so its path is `<mount path>/auth`; that rules out the
 * `__Host-` prefix (it demands `Path=/`), so the value is sealed instead (`login-state.ts`).
 */
export function oauthStateCookie(settings: ApiSettings, sealed: string): string {
  return signInCookie(settings, OAUTH_STATE_COOKIE, sealed, LOGIN_STATE_TTL_SECONDS);
}

/** `Set-Cookie` value that deletes the state cookie. */
export function clearedOAuthStateCookie(settings: ApiSettings): string {
  return clearedSignInCookie(settings, OAUTH_STATE_COOKIE);
}

/**
 * `Set-Cookie` of a cookie only the sign-in routes under `<mount path>/auth` read, kept
 * `maxAge` seconds.
 */
export function signInCookie(
  settings: ApiSettings,
  name: string,
  value: string,
  maxAge: number,
): string {
  return serialize(name, value, { ...signInCookieAttributes(settings), maxAge });
}

/** `Set-Cookie` value that deletes the {@link signInCookie} `name`. */
export function clearedSignInCookie(settings: ApiSettings, name: string): string {
  return serialize(name, '', {
    ...signInCookieAttributes(settings),
    maxAge: 0,
    expires: new Date(0),
  });
}

function signInCookieAttributes(settings: ApiSettings): SerializeOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    path: settings.oauthCookiePath,
    secure: settings.secureCookies,
  };
}
