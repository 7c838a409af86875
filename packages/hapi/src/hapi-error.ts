/**
 * An error Hapi sends as is: Hapi recognises errors by `isBoom` and `output` (the
 * `@hapi/boom` shape), so this gives covgate's exact JSON body without depending on Boom.
 */
export function hapiError(
  statusCode: number,
  payload: { error: string },
  headers: Record<string, string> = {},
): Error {
  return Object.assign(new Error(payload.error), {
    isBoom: true,
    output: { statusCode, payload, headers },
  });
}

/** Reads the status of a Hapi (Boom) error; `undefined` for anything else. */
export function hapiErrorStatus(error: unknown): number | undefined {
  const output = (error as { output?: { statusCode?: unknown } } | null)?.output;
  return typeof output?.statusCode === 'number' ? output.statusCode : undefined;
}
