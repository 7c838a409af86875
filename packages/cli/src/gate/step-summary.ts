import { appendFile } from 'node:fs/promises';
import type { Io } from '../io.js';

/**
 * Appends Markdown to GitHub Actions' job summary (`GITHUB_STEP_SUMMARY`) when it is set; a
 * file that cannot be written is a warning on stderr, never a failure of the gate.
 */
export async function appendStepSummary(io: Io, markdown: string): Promise<void> {
  const summaryFile = io.env.GITHUB_STEP_SUMMARY;
  if (!summaryFile) return;
  try {
    await appendFile(summaryFile, markdown);
  } catch (error) {
    io.stderr.write(
      `covgate: GITHUB_STEP_SUMMARY could not be written (${(error as NodeJS.ErrnoException).code ?? 'error'})\n`,
    );
  }
}
