import { gzipSync } from 'node:zlib';
import type { Execution, ExecutionInput } from '@covgate/client';
import { CliError } from '../errors.js';
import type { Io } from '../io.js';
import { clientFor, isUnavailable, serviceError } from '../service.js';
import { allowUnreachable } from './unreachable.js';

/** A body longer than this (64 KiB, the JSON limit of other routes) is sent gzip-compressed. */
const GZIP_ABOVE_BYTES = 64 * 1024;

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
  const { url, body } = input;
  const client = clientFor(io, url, input.token, input.version, input.timeout);
  try {
    // A long per-file list goes gzip-compressed; a short body stays plain JSON, which every
    // covgate service reads.
    const gzip = JSON.stringify(body).length > GZIP_ABOVE_BYTES ? gzipSync : undefined;
    return { record: await client.createExecution({ body, ...(gzip ? { gzip } : {}) }) };
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
