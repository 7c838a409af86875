/** Exit codes of `covgate`, one meaning each. */
export const EXIT = {
  /** The gate passed or warned (or the command succeeded). */
  ok: 0,
  /** The gate failed (`run` also passes on the test command's own non-zero code). */
  gateFailed: 1,
  /** Bad usage, configuration or report. */
  usage: 2,
  /** The service could not be reached or refused the credential. */
  service: 3,
} as const;

/**
 * An error `covgate` reports as one line on stderr, without a stack trace, and exits with
 * `exitCode`.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  /**
   * @param message - what happened and how to fix it
   * @param exitCode - one of {@link EXIT}
   */
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** A usage or configuration error (exit 2). */
export function usageError(message: string): CliError {
  return new CliError(message, EXIT.usage);
}
