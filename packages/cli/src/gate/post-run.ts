import { gzipSync } from 'node:zlib';
import type { Execution, ExecutionInput } from '@covgate/client';
import { CliError } from '../errors.js';
import type { Io } from '../io.js';
import { clientFor, isUnavailable, serviceError } from '../service.js';
import { fitBody } from './fit-body.js';
import { allowUnreachable } from './unreachable.js';

/**
 * The post phase: sends the run and resolves with the record the service answered, or with
 * the exit code when `--allow-unreachable` let an unavailable service pass.
 *
 * @throws CliError when the service refuses the run or cannot be reached
 */
export async function postRun(
  input: {
    url: string;
    token: string;
    version: string;
    body: ExecutionInput;
    timeout?: number;
    allowUnreachable?: boolean;
    json: boolean;
  },
  io: Io,
): Promise<{ record: Execution } | { exitCode: number }> {
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
  try {
    return {
      record: await client.createExecution({ body, ...(fitted.gzip ? { gzip: gzipSync } : {}) }),
    };
  } catch (error) {
    const failure = serviceError(error, url);
    if (input.allowUnreachable && isUnavailable(error) && failure instanceof CliError) {
      const exitCode = await allowUnreachable(io, {
        message: failure.message,
        repo: body.repo,
        branch: body.branch,
        coverage: body.coverage,
        json: input.json,
      });
      return { exitCode };
    }
    throw failure;
  }
}
