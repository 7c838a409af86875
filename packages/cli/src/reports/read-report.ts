import { constants } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { CloverHandler, parseClover } from './clover.js';
import { CoberturaHandler, parseCobertura } from './cobertura.js';
import { parseCoveragePy } from './coverage-py.js';
import { detectFormat } from './detect.js';
import { parseGoProfile } from './go.js';
import { parseIstanbul } from './istanbul.js';
import { JacocoHandler, parseJacoco } from './jacoco.js';
import { LcovReader, parseLcov } from './lcov.js';
import { parseSonarqube, SonarqubeHandler } from './sonarqube.js';
import { MalformedReport, type ParsedReport, ReportError, type ReportFormat } from './types.js';
import { XmlReader, type XmlReportHandler } from './xml.js';

const UNKNOWN_FORMAT =
  'not a coverage report covgate knows (lcov, Cobertura, Clover, JaCoCo, Istanbul JSON, Go cover profile, coverage.py JSON, SonarQube generic XML); name one with --format';

/** Bytes read at a time; the first read is also what the format is recognised by. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Parses a report's text in the given format, or the detected one with `'auto'`.
 *
 * @throws MalformedReport when the content is not a report of that format or has no data
 */
export function parseReport(text: string, format: ReportFormat | 'auto' = 'auto'): ParsedReport {
  if (text.trim() === '') throw new MalformedReport('the file is empty');
  const chosen = format === 'auto' ? detectFormat(text) : format;
  if (chosen === undefined) throw new MalformedReport(UNKNOWN_FORMAT);
  return withFiles(parseAs(text, chosen), chosen);
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
    case 'sonarqube':
      return parseSonarqube(text);
  }
}

function withFiles(report: ParsedReport, format: ReportFormat): ParsedReport {
  if (report.files.length === 0) {
    throw new MalformedReport(
      format === 'istanbul'
        ? 'an Istanbul report with no files: the tests loaded no file the coverage tool instruments (check its include, exclude and all options)'
        : `the ${format} report lists no files`,
    );
  }
  return report;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MalformedReport(`not valid JSON (${(error as Error).message})`);
  }
}

/** A format read piece by piece: lcov and the XML formats. */
export interface StreamingParser {
  write(chunk: string): void;
  end(): ParsedReport;
}

/** The parser that reads `format` piece by piece; undefined for a format read whole (JSON, Go). */
export function streamingParser(format: ReportFormat): StreamingParser | undefined {
  const xml = (handler: XmlReportHandler): StreamingParser => {
    const reader = new XmlReader(handler);
    return {
      write: (chunk) => reader.write(chunk),
      end: () => {
        reader.end();
        return handler.result();
      },
    };
  };
  switch (format) {
    case 'lcov':
      return new LcovReader();
    case 'cobertura':
      return xml(new CoberturaHandler());
    case 'clover':
      return xml(new CloverHandler());
    case 'jacoco':
      return xml(new JacocoHandler());
    case 'sonarqube':
      return xml(new SonarqubeHandler());
    default:
      return undefined;
  }
}

/** The pieces of a file as text, read errors turned into the user's message. */
async function* piecesOf(path: string): AsyncGenerator<string> {
  try {
    yield* createReadStream(path, { encoding: 'utf8', highWaterMark: CHUNK_BYTES });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ReportError(
      path,
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a folder, not a report'
          : `cannot be read (${code ?? (error as Error).message})`,
    );
  }
}

/**
 * Reads and parses the report at `path`. lcov, Cobertura, Clover and JaCoCo are read as a
 * stream, whatever their size; JSON reports and Go profiles are read whole, so they are limited
 * to the longest string Node.js can hold (`buffer.constants.MAX_STRING_LENGTH`, 512 MiB), and a
 * larger one is refused with a message saying so.
 *
 * @throws ReportError naming the file when it cannot be read or parsed
 */
export async function readReport(
  path: string,
  format: ReportFormat | 'auto' = 'auto',
): Promise<ParsedReport> {
  try {
    return await readPieces(path, format);
  } catch (error) {
    if (error instanceof ReportError) throw error;
    if (error instanceof MalformedReport) throw new ReportError(path, error.message);
    throw new ReportError(path, `cannot be parsed (${(error as Error).message})`);
  }
}

async function readPieces(path: string, format: ReportFormat | 'auto'): Promise<ParsedReport> {
  const pieces = piecesOf(path);
  let head = '';
  for (let next = await pieces.next(); !next.done; next = await pieces.next()) {
    head += next.value;
    if (/\S/.test(next.value)) break;
  }
  if (head.trim() === '') throw new MalformedReport('the file is empty');
  const json = /^\s*\{/.test(head);
  const chosen = format !== 'auto' ? format : json ? undefined : detectFormat(head);
  if (chosen === undefined && !json) throw new MalformedReport(UNKNOWN_FORMAT);
  const parser = chosen && streamingParser(chosen);
  if (!parser) {
    // JSON (recognised by its keys, so only once whole) and Go profiles: the whole text.
    await refuseLongerThanAString(path, chosen);
    const parts = [head];
    for await (const piece of pieces) parts.push(piece);
    return parseReport(parts.join(''), format);
  }
  parser.write(head);
  for await (const piece of pieces) parser.write(piece);
  return withFiles(parser.end(), chosen);
}

async function refuseLongerThanAString(path: string, format: ReportFormat | undefined) {
  const { size } = await stat(path);
  const max = constants.MAX_STRING_LENGTH;
  if (size <= max) return;
  const what =
    format === 'go'
      ? 'a Go cover profile is read whole'
      : format === undefined
        ? 'a JSON report is read whole'
        : `${format === 'istanbul' ? 'Istanbul' : 'coverage.py'} JSON is read whole`;
  const instead =
    format === 'go'
      ? 'pass the profile of each package with its own --report'
      : 'write lcov instead (Istanbul: the lcovonly reporter; coverage.py: coverage lcov), which covgate reads as a stream';
  throw new MalformedReport(
    `is ${(size / 1e6).toFixed(1)} MB, too large: ${what} and Node.js ${process.version} strings hold at most ${max} characters; ${instead}`,
  );
}
