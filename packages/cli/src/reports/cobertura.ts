import { LineTable } from './line-table.js';
import { MalformedReport, type ParsedReport } from './types.js';
import { type Attributes, countAttribute, readXml, type XmlReportHandler } from './xml.js';

/**
 * Reads a Cobertura XML report (`coverage.py xml`, c8/istanbul `cobertura`, gcovr, .NET
 * coverlet, ...) element by element. Line coverage as Cobertura computes its `line-rate`:
 * every `<line>` of a `<class>` (`coverage/packages/package/classes/class/lines/line`) is
 * coverable, covered when `hits` > 0. Classes of the same `filename` (inner classes) are merged
 * line by line; the copies of lines under `<methods>` are not counted twice. Branches: each
 * `<line branch="true">`'s `condition-coverage="50% (1/2)"` lists 2 branches of which 1 was
 * taken, the counts its `branch-rate` is made of. The folders of
 * `<sources><source>`, which file names are relative to, are kept as `sources`.
 */
export class CoberturaHandler implements XmlReportHandler {
  private readonly table = new LineTable(true);
  private inClass = false;
  private readonly sources: string[] = [];
  private source: string | undefined;
  readonly textElements = ['source'];

  open(name: string, attributes: Attributes, stack: readonly string[]) {
    const depth = stack.length;
    if (name === 'line') {
      if (this.inClass && depth === 6 && stack[5] === 'lines') {
        const number = countAttribute(attributes.get('number'), 'a <line> number');
        this.table.add(number, countAttribute(attributes.get('hits'), 'a <line> hits'));
        const condition = attributes.get('condition-coverage');
        if (attributes.get('branch') === 'true' && condition !== undefined) {
          const [taken, total] = conditionCounts(condition);
          this.table.addLineBranches(number, taken, total);
        }
      }
    } else if (depth === 0) {
      if (name !== 'coverage') throw new MalformedReport('no <coverage> root element');
    } else if (name === 'source' && depth === 2 && stack[1] === 'sources') {
      this.source = '';
    } else if (
      name === 'class' &&
      depth === 4 &&
      stack[1] === 'packages' &&
      stack[2] === 'package' &&
      stack[3] === 'classes'
    ) {
      const filename = attributes.get('filename') ?? attributes.get('name');
      if (filename === undefined) throw new MalformedReport('a <class> has no filename');
      this.table.begin(filename);
      this.inClass = true;
    }
  }

  text(text: string) {
    if (this.source !== undefined) this.source += text;
  }

  close(name: string, stack: readonly string[]) {
    if (this.inClass && name === 'class' && stack.length === 4) {
      this.table.end();
      this.inClass = false;
    } else if (this.source !== undefined && name === 'source') {
      // coverage.py writes an empty <source> beside the real ones.
      if (this.source.trim() !== '') this.sources.push(this.source.trim());
      this.source = undefined;
    }
  }

  result(): ParsedReport {
    const files = this.table.files();
    return this.sources.length > 0
      ? { format: 'cobertura', files, sources: this.sources }
      : { format: 'cobertura', files };
  }
}

/** The `(taken/total)` of a `condition-coverage="50% (1/2)"`. */
function conditionCounts(condition: string): [number, number] {
  const match = /\((\d+)\/(\d+)\)/.exec(condition);
  const taken = Number(match?.[1]);
  const total = Number(match?.[2]);
  if (!match || taken > total) {
    throw new MalformedReport(
      `a <line> condition-coverage is not "N% (taken/total)": ${condition.slice(0, 40)}`,
    );
  }
  return [taken, total];
}

/** Parses the text of a Cobertura XML report; see {@link CoberturaHandler}. */
export function parseCobertura(text: string): ParsedReport {
  const handler = new CoberturaHandler();
  readXml(text, handler);
  return handler.result();
}
