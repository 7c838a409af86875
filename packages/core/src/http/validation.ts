import type { z } from 'zod';
import { ApiError, ERRORS } from './api-error.js';

/**
 * Validates a parsed JSON body with a zod schema. A failure is
 * `400 {"error":"invalid parameter: <field>"}` naming the first offending field, or
 * `malformed request` when the body is not even an object.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const field = result.error.issues[0]?.path[0];
  if (typeof field === 'string') throw new ApiError(400, `invalid parameter: ${field}`);
  throw new ApiError(400, ERRORS.malformedRequest);
}
