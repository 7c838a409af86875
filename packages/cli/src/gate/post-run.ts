import { gzipSync } from 'node:zlib';
import { CovgateApiError, type Execution, type ExecutionInput } from '@covgate/client';
import { CliError, EXIT } from '../errors.js';
import type { Io } from '../io.js';
import { clientFor, displayUrl, isUnavailable, serviceError } from '../service.js';
import { fitBody, hasLineData, withoutLines } from './fit-body.js';

/**
 * The post phase: sends the run with `idempotencyKey` and resolves with the record the
 * service answered, or, when `--allow-unreachable` lets an unavailable service pass, with why
 * and the body as it was last sent (to be kept for `covgate flush`).
 *
 * @throws CliError when the service refuses the run or cannot be reached
 */
export async function postRun(
  input: {
    url: string;
    token: string;
    version: string;
    body: ExecutionInput;
    idempotencyKey: string;
    timeout?: number;
    allowUnreachable?: boolean;
  },
  io: Io,
): Promise<{ record: Execution } | { unavailable: string; body: ExecutionInput; gzip: boolean }> {
  const { url } = input;
  const client = clientFor(io, url, input.token, input.version, input.timeout);
  // A long per-file list goes gzip-compressed; a short body stays plain JSON, which every
  // covgate service reads. Line data that would pass the service's limits is left out.
  const fitted = fitBody(input.body);
  const { body } = fitted;
  if (fitted.linesLeftOut !== null) {
    io.stderr.write(
      `covgate: warning: the files' line data is left out: ${fitted.linesLeftOut}; their counts are sent\n`,
    );
  }
  let sent = body;
  // One key for both bodies: a 413 stores nothing, so the second body is the key's first.
  const send = (next: ExecutionInput) => {
    sent = next;
    return client.createExecution({
      body: next,
      idempotencyKey: input.idempotencyKey,
      ...(fitted.gzip ? { gzip: gzipSync } : {}),
    });
  };
  try {
    try {
      return { record: await send(body) };
    } catch (error) {
      // A service whose ingest limit is set below the default: the run without its line data
      // is what it took before line data existed. A part cannot go without (the service
      // merges parts line by line), so its 413 stands.
      const tooLarge = error instanceof CovgateApiError && error.status === 413;
      if (!tooLarge || !hasLineData(body)) throw error;
      if (body.part != null) {
        throw new CliError(
          `the service at ${displayUrl(url)} refused part ${body.part} as too large (413): a part needs its files' line data, which is over the service's ingest limit; raise it there (INGEST_MAX_BODY_MIB, up to 16) or split the part`,
          EXIT.service,
        );
      }
      io.stderr.write(
        `covgate: warning: the service refused the run with its files' line data as too large (413); sent again without it, their counts only\n`,
      );
      return { record: await send(withoutLines(body)) };
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    const failure = serviceError(error, url);
    if (input.allowUnreachable && isUnavailable(error) && failure instanceof CliError) {
      return { unavailable: failure.message, body: sent, gzip: fitted.gzip };
    }
    throw failure;
  }
}
