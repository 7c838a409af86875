import { LineTable } from './line-table.js';
import { MalformedReport, type ParsedReport } from './types.js';
import { type Attributes, countAttribute, readXml, type XmlReportHandler } from './xml.js';

/**
 * Reads SonarQube's generic test coverage XML (`gcovr --sonarqube`, dotnet-sonarscanner
 * converters, many C, C++ and .NET pipelines) element by element:
 * `<coverage version="1"><file path="..."><lineToCover lineNumber="3" covered="true"/>`.
 * Every `<lineToCover>` is a coverable line, covered when `covered` is `true`, the "lines to
 * cover" and "uncovered lines" SonarQube itself counts; its `branchesToCover` and
 * `coveredBranches` are the line's branches ("conditions to cover"). Several `<file>` elements
 * of one path are united line by line.
 */
export class SonarqubeHandler implements XmlReportHandler {
  private readonly table = new LineTable(true);
  private inFile = false;

  open(name: string, attributes: Attributes, stack: readonly string[]) {
    const depth = stack.length;
    if (depth === 0) {
      if (name !== 'coverage') throw new MalformedReport('no <coverage> root element');
      const version = attributes.get('version');
      if (version !== '1') {
        throw new MalformedReport(
          `SonarQube generic coverage version ${version ?? '(none)'}; covgate reads version 1`,
        );
      }
    } else if (name === 'file' && depth === 1) {
      const path = attributes.get('path');
      if (path === undefined) throw new MalformedReport('a <file> has no path');
      this.table.begin(path);
      this.inFile = true;
    } else if (name === 'lineToCover' && this.inFile && depth === 2) {
      const line = countAttribute(attributes.get('lineNumber'), 'a <lineToCover> lineNumber');
      this.table.add(line, coveredHits(attributes.get('covered')));
      const total = attributes.get('branchesToCover');
      if (total !== undefined) {
        const branches = countAttribute(total, 'a <lineToCover> branchesToCover');
        const taken = countAttribute(
          attributes.get('coveredBranches') ?? '0',
          'a <lineToCover> coveredBranches',
        );
        if (taken > branches) {
          throw new MalformedReport(`line ${line} covers more branches than it has`);
        }
        this.table.addLineBranches(line, taken, branches);
      }
    }
  }

  close(name: string, stack: readonly string[]) {
    if (this.inFile && name === 'file' && stack.length === 1) {
      this.table.end();
      this.inFile = false;
    }
  }

  result(): ParsedReport {
    return { format: 'sonarqube', files: this.table.files() };
  }
}

function coveredHits(covered: string | undefined): number {
  if (covered === 'true') return 1;
  if (covered === 'false') return 0;
  throw new MalformedReport(
    `a <lineToCover> covered is ${covered === undefined ? 'missing' : `"${covered.slice(0, 20)}"`}, not true or false`,
  );
}

/** Parses the text of a SonarQube generic coverage report; see {@link SonarqubeHandler}. */
export function parseSonarqube(text: string): ParsedReport {
  const handler = new SonarqubeHandler();
  readXml(text, handler);
  return handler.result();
}
