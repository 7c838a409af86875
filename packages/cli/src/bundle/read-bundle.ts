import { open } from 'node:fs/promises';
import { usageError } from '../errors.js';
import { type Bundle, MAX_BUNDLE_BYTES } from './bundle.js';
import { bundleProblem } from './check-bundle.js';

/**
 * Reads and checks a bundle file: at most {@link MAX_BUNDLE_BYTES} (a larger one is refused
 * before it is read), JSON, and a bundle by {@link bundleProblem}. Nothing of it is used
 * before it passed.
 *
 * @throws CliError (exit 2) naming the file and what is wrong
 */
export async function readBundle(path: string, shown: string = path): Promise<Bundle> {
  let text: string;
  const file = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    throw usageError(`--bundle ${shown}: cannot be read (${error.code ?? error.message})`);
  });
  try {
    const { size } = await file.stat();
    if (size > MAX_BUNDLE_BYTES) {
      throw usageError(
        `--bundle ${shown}: ${size} bytes, more than a bundle may have (${MAX_BUNDLE_BYTES}); nothing was posted`,
      );
    }
    // At most one byte more than the bound: a file that grew since its size was read is refused.
    const buffer = Buffer.alloc(MAX_BUNDLE_BYTES + 1);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_BUNDLE_BYTES) {
      throw usageError(
        `--bundle ${shown}: more than ${MAX_BUNDLE_BYTES} bytes; nothing was posted`,
      );
    }
    text = buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await file.close();
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(`--bundle ${shown}: not JSON; nothing was posted`);
  }
  const problem = bundleProblem(value);
  if (problem !== null)
    throw usageError(`--bundle ${shown}: not a valid bundle: ${problem}; nothing was posted`);
  return value as Bundle;
}
