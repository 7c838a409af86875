import { MalformedReport, type ParsedReport } from './types.js';
import { count, fileFromUnits, recordHits } from './units.js';
import { attr, children, parseXml, root, type XmlNode } from './xml.js';

/**
 * Parses a Clover XML report (OpenClover, istanbul/c8 `clover`, PHPUnit). Clover itself
 * measures statements, branches and methods; its line coverage, as istanbul writes it, is the
 * distinct `<line>` numbers of type `stmt` or `cond`, covered when `count` > 0 (a `cond` line
 * without `count` is covered when `truecount` or `falsecount` is > 0). `method` lines are
 * declarations, not executable lines, and are not counted.
 */
export function parseClover(text: string): ParsedReport {
  const coverage = root(parseXml(text), 'coverage');
  const project = children(coverage, 'project')[0];
  if (!coverage || !project) throw new MalformedReport('no <coverage><project> root elements');
  const byFile = new Map<string, Map<number | string, number>>();
  const files = [
    ...children(project, 'file'),
    ...children(project, 'package').flatMap((pkg) => children(pkg, 'file')),
  ];
  for (const file of files) {
    const path = attr(file, 'path') ?? attr(file, 'name');
    if (path === undefined) throw new MalformedReport('a <file> has neither path nor name');
    const units = byFile.get(path) ?? new Map<number | string, number>();
    byFile.set(path, units);
    for (const line of children(file, 'line')) {
      const type = attr(line, 'type');
      if (type !== 'stmt' && type !== 'cond') continue;
      recordHits(units, count(attr(line, 'num'), 'a <line> num'), hits(line));
    }
  }
  return {
    format: 'clover',
    files: [...byFile].map(([path, units]) => fileFromUnits(path, units)),
  };
}

function hits(line: XmlNode): number {
  const value = attr(line, 'count');
  if (value !== undefined) return count(value, 'a <line> count');
  const truecount = attr(line, 'truecount');
  const falsecount = attr(line, 'falsecount');
  return (
    count(truecount ?? '0', 'a <line> truecount') + count(falsecount ?? '0', 'a <line> falsecount')
  );
}
