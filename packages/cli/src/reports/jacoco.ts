import { MalformedReport, type ParsedReport } from './types.js';
import { count, fileFromUnits, recordHits } from './units.js';
import { attr, children, parseXml, root, type XmlNode } from './xml.js';

/**
 * Parses a JaCoCo XML report. Line coverage as JaCoCo's `LINE` counter defines it: a source
 * line with at least one instruction (`mi` + `ci` > 0) is coverable, and covered when at least
 * one of its instructions ran (`ci` > 0). Files are named `<package>/<sourcefile>`; packages
 * inside `<group>`s (multi-module reports) are included.
 */
export function parseJacoco(text: string): ParsedReport {
  const report = root(parseXml(text), 'report');
  if (!report) throw new MalformedReport('no <report> root element');
  const byFile = new Map<string, Map<number | string, number>>();
  for (const pkg of packagesOf(report)) {
    const pkgName = attr(pkg, 'name') ?? '';
    for (const source of children(pkg, 'sourcefile')) {
      const name = attr(source, 'name');
      if (name === undefined) throw new MalformedReport('a <sourcefile> has no name');
      const path = pkgName === '' ? name : `${pkgName}/${name}`;
      const units = byFile.get(path) ?? new Map<number | string, number>();
      byFile.set(path, units);
      for (const line of children(source, 'line')) {
        const missed = count(attr(line, 'mi'), 'a <line> mi');
        const covered = count(attr(line, 'ci'), 'a <line> ci');
        if (missed + covered === 0) continue;
        recordHits(units, count(attr(line, 'nr'), 'a <line> nr'), covered);
      }
    }
  }
  return {
    format: 'jacoco',
    files: [...byFile].map(([path, units]) => fileFromUnits(path, units)),
  };
}

function packagesOf(node: XmlNode): XmlNode[] {
  return [...children(node, 'package'), ...children(node, 'group').flatMap(packagesOf)];
}
