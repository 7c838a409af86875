import {
  ArcticFetchError,
  OAuth2RequestError,
  UnexpectedErrorResponseBodyError,
  UnexpectedResponseError,
} from 'arctic';
import { CodeHostError, type CodeHostUser } from './code-host.js';

// What the OAuth2 code hosts built on arctic (GitLab, Gitea) answer, read the same way: the
// token endpoint's errors as CodeHostErrors, and the signed-in account from the user endpoint.

const OAUTH_ERROR_CODE = /^[a-z0-9_.-]{1,64}$/i;
const MAX_LOGIN_LENGTH = 255;

/**
 * How a host reads an OAuth error of its token endpoint: whether it refused the code (rather
 * than a misconfiguration), and a detail safe to log after the error code ('' for none).
 */
export type ReadOAuthError = (error: OAuth2RequestError) => { refused: boolean; detail: string };

/** The CodeHostError for a failed token request; `read` decides what an OAuth error means. */
export function tokenEndpointError(error: unknown, read: ReadOAuthError): CodeHostError {
  if (error instanceof OAuth2RequestError) {
    const shown = OAUTH_ERROR_CODE.test(error.code) ? error.code : 'unrecognised';
    const { refused, detail } = read(error);
    return new CodeHostError(
      refused ? 'invalid-code' : 'failed',
      `token endpoint error ${shown}${detail}`,
    );
  }
  if (error instanceof ArcticFetchError) {
    return new CodeHostError('unavailable', 'token endpoint unreachable');
  }
  if (
    error instanceof UnexpectedErrorResponseBodyError ||
    error instanceof UnexpectedResponseError
  ) {
    return new CodeHostError('failed', `token endpoint answered ${error.status}`);
  }
  return new CodeHostError('failed', 'token exchange failed');
}

/**
 * The account behind `accessToken` from the host's user endpoint: its numeric `id` and the
 * login in `loginField` (GitLab's `username`, Gitea's `login`).
 */
export async function fetchCodeHostUser(
  url: string,
  accessToken: string,
  signal: AbortSignal,
  loginField: 'username' | 'login',
): Promise<CodeHostUser> {
  const response = await fetch(url, {
    headers: { accept: 'application/json', authorization: `Bearer ${accessToken}` },
    signal,
  }).catch(() => null);
  if (response === null) throw new CodeHostError('unavailable', 'user endpoint unreachable');
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new CodeHostError('failed', `user endpoint answered ${response.status}`);
  }
  const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  const id = body?.id;
  const login = body?.[loginField];
  if (
    typeof id !== 'number' ||
    !Number.isSafeInteger(id) ||
    id <= 0 ||
    typeof login !== 'string' ||
    login === '' ||
    login.length > MAX_LOGIN_LENGTH
  ) {
    throw new CodeHostError(
      'failed',
      `user endpoint answered without a valid id and ${loginField}`,
    );
  }
  return { id: String(id), login };
}
