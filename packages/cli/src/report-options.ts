import { InvalidArgumentError } from 'commander';
import type { ReportSpec } from './gather-reports.js';
import { type PathMap, parsePathMap } from './paths/path-map.js';

/**
 * The parsers of `--report` and `--path-prefix`, which share one list: commander calls them in
 * the order of the command line, so a `--path-prefix` belongs to the `--report` before it.
 */
export function reportListParsers(): {
  report: (value: string) => ReportSpec[];
  pathPrefix: (value: string) => string;
} {
  const reports: ReportSpec[] = [];
  return {
    report: (value) => {
      reports.push({ path: value });
      return reports;
    },
    pathPrefix: (value) => {
      const last = reports[reports.length - 1];
      if (!last) throw new InvalidArgumentError('put it after the --report it belongs to');
      if (last.prefix !== undefined)
        throw new InvalidArgumentError(
          `--report ${last.path} already has --path-prefix ${last.prefix}`,
        );
      last.prefix = value;
      return value;
    },
  };
}

/** The parser of a repeatable `--path-map FROM=TO`. */
export function pathMapParser(value: string, previous: PathMap[]): PathMap[] {
  try {
    return [...previous, parsePathMap(value)];
  } catch (error) {
    throw new InvalidArgumentError(`${(error as Error).message}: write FROM=TO, e.g. /app/=`);
  }
}
