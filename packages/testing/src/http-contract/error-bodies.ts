/** The bodies of the API's common error answers, as the contract tests expect them. */

/** 401: a missing, unknown, wrong or expired credential. */
export const INVALID_TOKEN = { error: 'invalid token' };
/** 403: a credential that may not do this (another organisation, a role, a scope). */
export const FORBIDDEN = { error: 'forbidden' };
/** 404: nothing of the caller's organisation under that id. */
export const NOT_FOUND = { error: 'not found' };
/** 400: a body that is not the JSON the route takes. */
export const MALFORMED = { error: 'malformed request' };
