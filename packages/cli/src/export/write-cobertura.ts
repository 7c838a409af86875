import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';
import { plural } from '../report-lines.js';
import type { FileCoverage } from '../reports/types.js';
import { coberturaXml } from './cobertura-xml.js';

/** GitLab reads a `coverage_report` Cobertura file of at most this many bytes (10 MiB). */
export const GITLAB_COBERTURA_BYTES = 10 * 1024 * 1024;

/**
 * `--cobertura-out PATH`: writes the run's merged, repository-relative files as one Cobertura
 * XML file for GitLab's `artifacts:reports:coverage_report` (see {@link coberturaXml}),
 * creating its folder, and says on stderr what it wrote, which files it left out and when
 * the file is larger than GitLab reads.
 *
 * @param path - as the user gave it, relative to the working folder
 * @throws CliError (exit 2) when the file cannot be written
 */
export async function writeCobertura(
  path: string,
  files: readonly FileCoverage[],
  io: Io,
  meta: { version: string; now?: () => number },
): Promise<void> {
  const written = coberturaXml(files, {
    version: meta.version,
    timestamp: (meta.now ?? Date.now)(),
  });
  const target = resolve(io.cwd, path);
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(temporary, written.xml);
    await rename(temporary, target);
  } catch (error) {
    throw usageError(
      `--cobertura-out ${path}: cannot write it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  const { lines, leftOut } = written;
  io.stderr.write(
    `covgate: wrote ${path} (Cobertura, ${plural(written.files, 'file')}, ${lines.covered} of ${plural(lines.valid, 'line')} covered)\n`,
  );
  if (leftOut.countsOnly.length > 0) {
    io.stderr.write(
      `covgate: warning: ${path} leaves out ${plural(leftOut.countsOnly.length, 'file')} its report gives by counts only, without lines: ${sample(leftOut.countsOnly)}\n`,
    );
  }
  if (leftOut.outside.length > 0) {
    io.stderr.write(
      `covgate: warning: ${path} leaves out ${plural(leftOut.outside.length, 'file')} outside the repository (a --path-map makes them repository-relative): ${sample(leftOut.outside)}\n`,
    );
  }
  const bytes = Buffer.byteLength(written.xml);
  if (bytes > GITLAB_COBERTURA_BYTES) {
    io.stderr.write(
      `covgate: warning: ${path} is ${(bytes / 1024 / 1024).toFixed(1)} MiB; GitLab ignores a coverage_report file over 10 MiB (leave generated files out with the policy's ignore)\n`,
    );
  }
}

function sample(paths: readonly string[]): string {
  return paths.length > 3
    ? `${paths.slice(0, 3).join(', ')} and ${paths.length - 3} more`
    : paths.join(', ');
}
