import { MalformedReport, type ParsedReport } from './types.js';
import { count, fileFromUnits, recordHits } from './units.js';
import { attr, children, parseXml, root, type XmlNode } from './xml.js';

/**
 * Parses a Cobertura XML report (`coverage.py xml`, c8/istanbul `cobertura`, gcovr, .NET
 * coverlet, ...). Line coverage as Cobertura computes its `line-rate`: every `<line>` of a
 * `<class>` is coverable, covered when `hits` > 0. Classes of the same `filename` (inner
 * classes) are merged line by line; the copies of lines under `<methods>` are not counted twice.
 */
export function parseCobertura(text: string): ParsedReport {
  const coverage = root(parseXml(text), 'coverage');
  if (!coverage) throw new MalformedReport('no <coverage> root element');
  const byFile = new Map<string, Map<number | string, number>>();
  for (const pkg of children(children(coverage, 'packages')[0], 'package')) {
    for (const cls of children(children(pkg, 'classes')[0], 'class')) {
      const filename = attr(cls, 'filename') ?? attr(cls, 'name');
      if (filename === undefined) throw new MalformedReport('a <class> has no filename');
      const units = byFile.get(filename) ?? new Map<number | string, number>();
      byFile.set(filename, units);
      for (const line of children(children(cls, 'lines')[0], 'line')) {
        recordHits(units, count(attr(line, 'number'), 'a <line> number'), hits(line));
      }
    }
  }
  return {
    format: 'cobertura',
    files: [...byFile].map(([path, units]) => fileFromUnits(path, units)),
  };
}

function hits(line: XmlNode): number {
  return count(attr(line, 'hits'), 'a <line> hits');
}
