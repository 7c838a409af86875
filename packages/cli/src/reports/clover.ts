import { LineTable } from './line-table.js';
import { MalformedReport, type ParsedReport } from './types.js';
import { type Attributes, countAttribute, readXml, type XmlReportHandler } from './xml.js';

/**
 * Reads a Clover XML report (OpenClover, istanbul/c8 `clover`, PHPUnit) element by element.
 * Clover itself measures statements, branches and methods; its line coverage, as istanbul
 * writes it, is the distinct `<line>` numbers of type `stmt` or `cond`, covered when `count`
 * > 0 (a `cond` line without `count` is covered when `truecount` or `falsecount` is > 0).
 * `method` lines are declarations, not executable lines, and are not counted.
 *
 * The files are the `<file>` elements anywhere inside `<coverage><project>`: directly, in a
 * `<package>`, or, as istanbul-reports 1.x (Jest < 24) wrote them, inside the project's
 * `<metrics>` element that it left open. OpenClover's `<testproject>` (test sources) is not read.
 * Branches: each file's `<metrics conditionals coveredconditionals>`, the figures both
 * OpenClover and istanbul compute (its `<line>`s' `truecount`/`falsecount` mean different
 * things to the two), as counts only.
 */
export class CloverHandler implements XmlReportHandler {
  private readonly table = new LineTable(true);
  private sawProject = false;
  private fileDepth = -1;
  private fileBranches: { coverable: number; covered: number } | undefined;

  open(name: string, attributes: Attributes, stack: readonly string[]) {
    const depth = stack.length;
    if (name === 'line') {
      if (this.fileDepth >= 0 && depth === this.fileDepth + 1) this.line(attributes);
    } else if (name === 'metrics' && this.fileDepth >= 0 && depth === this.fileDepth + 1) {
      const conditionals = attributes.get('conditionals');
      if (conditionals !== undefined) {
        const coverable = countAttribute(conditionals, 'a file <metrics> conditionals');
        const covered = countAttribute(
          attributes.get('coveredconditionals') ?? '0',
          'a file <metrics> coveredconditionals',
        );
        this.fileBranches = { coverable, covered: Math.min(covered, coverable) };
      }
    } else if (depth === 0) {
      if (name !== 'coverage') throw new MalformedReport('no <coverage><project> root elements');
    } else if (name === 'project' && depth === 1) {
      this.sawProject = true;
    } else if (name === 'file' && this.fileDepth === -1 && depth >= 2 && stack[1] === 'project') {
      const path = attributes.get('path') ?? attributes.get('name');
      if (path === undefined) throw new MalformedReport('a <file> has neither path nor name');
      this.table.begin(path);
      this.fileDepth = depth;
      this.fileBranches = undefined;
    }
  }

  close(name: string, stack: readonly string[]) {
    if (name === 'file' && stack.length === this.fileDepth) {
      this.table.end(undefined, this.fileBranches);
      this.fileDepth = -1;
    }
  }

  result(): ParsedReport {
    if (!this.sawProject) throw new MalformedReport('no <coverage><project> root elements');
    return { format: 'clover', files: this.table.files() };
  }

  private line(attributes: Attributes) {
    const type = attributes.get('type');
    if (type !== 'stmt' && type !== 'cond') return;
    const number = countAttribute(attributes.get('num'), 'a <line> num');
    const lineCount = attributes.get('count');
    const hits =
      lineCount !== undefined
        ? countAttribute(lineCount, 'a <line> count')
        : countAttribute(attributes.get('truecount') ?? '0', 'a <line> truecount') +
          countAttribute(attributes.get('falsecount') ?? '0', 'a <line> falsecount');
    this.table.add(number, hits);
  }
}

/** Parses the text of a Clover XML report; see {@link CloverHandler}. */
export function parseClover(text: string): ParsedReport {
  const handler = new CloverHandler();
  readXml(text, handler);
  return handler.result();
}
