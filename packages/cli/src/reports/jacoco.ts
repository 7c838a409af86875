import { LineTable } from './line-table.js';
import { MalformedReport, type ParsedReport } from './types.js';
import { type Attributes, countAttribute, readXml, type XmlReportHandler } from './xml.js';

/**
 * Reads a JaCoCo XML report element by element. Line coverage as JaCoCo's `LINE` counter
 * defines it: a source line with at least one instruction (`mi` + `ci` > 0) is coverable, and
 * covered when at least one of its instructions ran (`ci` > 0).
 *
 * Files are named `<package>/<sourcefile>`. In a report with `<group>`s (an aggregate of
 * several modules, e.g. jacoco-maven-plugin's `report-aggregate`, one group per module) the
 * group names come first, `<group>/<package>/<sourcefile>`: two modules may hold the same
 * package and file name, and JaCoCo counts them as two files.
 */
export class JacocoHandler implements XmlReportHandler {
  private readonly table = new LineTable(true);
  private readonly groups: string[] = [];
  private packagePrefix: string | undefined;
  private inSource = false;

  open(name: string, attributes: Attributes, stack: readonly string[]) {
    const depth = stack.length;
    // Groups nest from the root: depth 1 + the groups open around this element.
    const level = this.groups.length + 1;
    if (name === 'line') {
      if (this.inSource && depth === level + 2) this.line(attributes);
    } else if (depth === 0) {
      if (name !== 'report') throw new MalformedReport('no <report> root element');
    } else if (depth === level && this.packagePrefix === undefined) {
      if (name === 'group') {
        this.groups.push(attributes.get('name') ?? '');
      } else if (name === 'package') {
        this.packagePrefix = [...this.groups, attributes.get('name') ?? '']
          .filter((part) => part !== '')
          .map((part) => `${part}/`)
          .join('');
      }
    } else if (name === 'sourcefile' && depth === level + 1 && this.packagePrefix !== undefined) {
      const file = attributes.get('name');
      if (file === undefined) throw new MalformedReport('a <sourcefile> has no name');
      this.table.begin(`${this.packagePrefix}${file}`);
      this.inSource = true;
    }
  }

  close(name: string, stack: readonly string[]) {
    const depth = stack.length;
    const level = this.groups.length + 1;
    if (this.inSource) {
      if (name === 'sourcefile' && depth === level + 1) {
        this.table.end();
        this.inSource = false;
      }
    } else if (this.packagePrefix !== undefined) {
      if (name === 'package' && depth === level) this.packagePrefix = undefined;
    } else if (name === 'group' && depth === level - 1) {
      this.groups.pop();
    }
  }

  result(): ParsedReport {
    return { format: 'jacoco', files: this.table.files() };
  }

  /**
   * A `<line nr mi ci mb cb>`: coverable when it has instructions, covered when one ran; its
   * branches are `mb` + `cb`, `cb` of them covered (JaCoCo's `BRANCH` counter).
   */
  private line(attributes: Attributes) {
    const missed = countAttribute(attributes.get('mi'), 'a <line> mi');
    const covered = countAttribute(attributes.get('ci'), 'a <line> ci');
    if (missed + covered === 0) return;
    const line = countAttribute(attributes.get('nr'), 'a <line> nr');
    this.table.add(line, covered);
    const missedBranches = attributes.get('mb');
    const coveredBranches = attributes.get('cb');
    if (missedBranches === undefined && coveredBranches === undefined) return;
    const taken = countAttribute(coveredBranches ?? '0', 'a <line> cb');
    const total = taken + countAttribute(missedBranches ?? '0', 'a <line> mb');
    if (total > 0) this.table.addLineBranches(line, taken, total);
  }
}

/** Parses the text of a JaCoCo XML report; see {@link JacocoHandler}. */
export function parseJacoco(text: string): ParsedReport {
  const handler = new JacocoHandler();
  readXml(text, handler);
  return handler.result();
}
