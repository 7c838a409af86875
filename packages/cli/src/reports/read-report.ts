import { readFile } from 'node:fs/promises';
import { parseClover } from './clover.js';
import { parseCobertura } from './cobertura.js';
import { parseCoveragePy } from './coverage-py.js';
import { detectFormat } from './detect.js';
import { parseGoProfile } from './go.js';
import { parseIstanbul } from './istanbul.js';
import { parseJacoco } from './jacoco.js';
import { parseLcov } from './lcov.js';
import { MalformedReport, type ParsedReport, ReportError, type ReportFormat } from './types.js';

/**
 * Parses a report's text in the given format, or the detected one with `'auto'`.
 *
 * @throws MalformedReport when the content is not a report of that format or has no data
 */
export function parseReport(text: string, format: ReportFormat | 'auto' = 'auto'): ParsedReport {
  if (text.trim() === '') throw new MalformedReport('the file is empty');
  const chosen = format === 'auto' ? detectFormat(text) : format;
  if (chosen === undefined) {
    throw new MalformedReport(
      'not a coverage report covgate knows (lcov, Cobertura, Clover, JaCoCo, Istanbul JSON, Go cover profile, coverage.py JSON); name one with --format',
    );
  }
  const report = parseAs(text, chosen);
  if (report.files.length === 0) throw new MalformedReport(`the ${chosen} report lists no files`);
  return report;
}

function parseAs(text: string, format: ReportFormat): ParsedReport {
  switch (format) {
    case 'lcov':
      return parseLcov(text);
    case 'cobertura':
      return parseCobertura(text);
    case 'clover':
      return parseClover(text);
    case 'jacoco':
      return parseJacoco(text);
    case 'go':
      return parseGoProfile(text);
    case 'istanbul':
      return parseIstanbul(parseJson(text));
    case 'coverage-py':
      return parseCoveragePy(parseJson(text));
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MalformedReport(`not valid JSON (${(error as Error).message})`);
  }
}

/**
 * Reads and parses the report at `path`.
 *
 * @throws ReportError naming the file when it cannot be read or parsed
 */
export async function readReport(
  path: string,
  format: ReportFormat | 'auto' = 'auto',
): Promise<ParsedReport> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ReportError(
      path,
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a folder, not a report'
          : `cannot be read (${code ?? 'error'})`,
    );
  }
  try {
    return parseReport(text, format);
  } catch (error) {
    if (error instanceof MalformedReport) throw new ReportError(path, error.message);
    throw new ReportError(path, `cannot be parsed (${(error as Error).message})`);
  }
}
