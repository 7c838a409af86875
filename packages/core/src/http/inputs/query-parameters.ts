import { ApiError } from '../api-error.js';

/** Digits without a leading zero: no sign, exponent or fraction (the bounds cap the length). */
const LIMIT_SHAPE = /^[1-9][0-9]*$/;

/** A non-empty query parameter, else `400 missing required parameter: <name>`. */
export function requireQueryParameter(params: URLSearchParams, name: string): string {
  const value = params.get(name);
  if (value === null || value === '') {
    throw new ApiError(400, `missing required parameter: ${name}`);
  }
  return value;
}

/** The `limit` query parameter: `bounds.default` when absent, 1 to `bounds.max`, else `400`. */
export function parseLimitParameter(
  value: string | null,
  bounds: { default: number; max: number },
): number {
  if (value === null) return bounds.default;
  const limit = LIMIT_SHAPE.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= 1 && limit <= bounds.max)) {
    throw new ApiError(400, 'invalid parameter: limit');
  }
  return limit;
}
