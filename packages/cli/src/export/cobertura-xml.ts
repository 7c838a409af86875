import XMLBuilder from 'fast-xml-builder';
import { lineHits } from '../patch/line-hits.js';
import { isAbsolutePath } from '../paths/normalise.js';
import { branchLine } from '../reports/branches.js';
import type { FileCoverage } from '../reports/types.js';

/** What {@link coberturaXml} wrote, for the line the CLI prints. */
export interface CoberturaSummary {
  /** The XML document. */
  xml: string;
  /** Files written (each a `<class>`). */
  files: number;
  /** `<line>`s written, and how many of them have hits. */
  lines: { covered: number; valid: number };
  /** Files left out: known by counts only (no lines to annotate) or outside the repository. */
  leftOut: { countsOnly: string[]; outside: string[] };
}

interface LineNode {
  '@_number': number;
  '@_hits': number;
  '@_branch'?: 'true';
  '@_condition-coverage'?: string;
}

interface ClassNode {
  path: string;
  lines: LineNode[];
  covered: number;
  branches: { covered: number; valid: number };
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressBooleanAttributes: false,
  suppressEmptyNode: true,
  format: true,
  indentBy: '\t',
});

/**
 * The files as one Cobertura XML document (the DTD's `coverage-04` shape that coverage.py and
 * GitLab read): one `<class>` per file, its `filename` repository-relative, under a single
 * `<source>.</source>`, which GitLab's class path correction leaves alone (it only rewrites
 * names against sources that lie below the project's own folder), so a merge request's diff is
 * annotated from the names as written. Each file's lines are covgate's own line hits (what a
 * run sends as line data: Go blocks spread over their lines, coverage.py's statements);
 * a line with branches carries `condition-coverage="50% (1/2)"`, counted from the branches
 * the report places on that line (a branch on a line the report gives no hits for, as lcov's
 * `BRDA` on a function's signature, has no `<line>` to stand on and is left out). Files known
 * by counts only and absolute paths (outside the
 * repository) have nothing GitLab can place, so they are left out and listed. Files, then
 * lines, are sorted, so the same coverage always gives the same bytes.
 *
 * @param files - merged, repository-relative files (as the CLI reads them)
 * @param meta - the CLI's version and the time of writing (milliseconds since the epoch)
 */
export function coberturaXml(
  files: readonly FileCoverage[],
  meta: { version: string; timestamp: number },
): CoberturaSummary {
  const classes: ClassNode[] = [];
  const countsOnly: string[] = [];
  const outside: string[] = [];
  for (const file of [...files].sort((a, b) => byCodeUnits(a.path, b.path))) {
    if (isAbsolutePath(file.path)) {
      outside.push(file.path);
      continue;
    }
    const hits = lineHits(file);
    if (hits === undefined) {
      countsOnly.push(file.path);
      continue;
    }
    classes.push(classNode(file, hits));
  }
  const lines = { covered: 0, valid: 0 };
  const branches = { covered: 0, valid: 0 };
  for (const c of classes) {
    lines.covered += c.covered;
    lines.valid += c.lines.length;
    branches.covered += c.branches.covered;
    branches.valid += c.branches.valid;
  }
  const document = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    coverage: {
      '@_line-rate': rate(lines.covered, lines.valid),
      '@_branch-rate': rate(branches.covered, branches.valid),
      '@_lines-covered': lines.covered,
      '@_lines-valid': lines.valid,
      '@_branches-covered': branches.covered,
      '@_branches-valid': branches.valid,
      '@_complexity': 0,
      '@_version': meta.version,
      '@_timestamp': meta.timestamp,
      sources: { source: '.' },
      packages: { package: packages(classes) },
    },
  };
  return {
    xml: builder.build(document),
    files: classes.length,
    lines,
    leftOut: { countsOnly, outside },
  };
}

function classNode(file: FileCoverage, hits: Map<number, number>): ClassNode {
  const perLine = lineBranches(file);
  const lines: LineNode[] = [];
  let covered = 0;
  const branches = { covered: 0, valid: 0 };
  for (const number of [...hits.keys()].sort((a, b) => a - b)) {
    const count = hits.get(number) as number;
    if (count > 0) covered++;
    const line: LineNode = { '@_number': number, '@_hits': count };
    const branch = perLine?.get(number);
    if (branch && branch.total > 0) {
      line['@_branch'] = 'true';
      line['@_condition-coverage'] =
        `${Math.floor((branch.taken / branch.total) * 100)}% (${branch.taken}/${branch.total})`;
      branches.covered += branch.taken;
      branches.valid += branch.total;
    }
    lines.push(line);
  }
  return { path: file.path, lines, covered, branches };
}

/** Taken and total branches per line; undefined when the file's branches name no lines. */
function lineBranches(
  file: FileCoverage,
): Map<number, { taken: number; total: number }> | undefined {
  const units = file.branches?.units?.();
  if (!units) return undefined;
  const byLine = new Map<number, { taken: number; total: number }>();
  for (const [key, hits] of units) {
    const line = branchLine(key);
    if (line === null) continue;
    const counts = byLine.get(line) ?? { taken: 0, total: 0 };
    counts.total++;
    if (hits > 0) counts.taken++;
    byLine.set(line, counts);
  }
  return byLine;
}

/** One `<package>` per folder (`.` the repository root), in path order. */
function packages(classes: readonly ClassNode[]) {
  const byFolder = new Map<string, ClassNode[]>();
  for (const c of classes) {
    const slash = c.path.lastIndexOf('/');
    const folder = slash < 0 ? '.' : c.path.slice(0, slash);
    const list = byFolder.get(folder) ?? [];
    list.push(c);
    byFolder.set(folder, list);
  }
  return [...byFolder].map(([folder, members]) => {
    let covered = 0;
    let valid = 0;
    const branches = { covered: 0, valid: 0 };
    for (const c of members) {
      covered += c.covered;
      valid += c.lines.length;
      branches.covered += c.branches.covered;
      branches.valid += c.branches.valid;
    }
    return {
      '@_name': folder,
      '@_line-rate': rate(covered, valid),
      '@_branch-rate': rate(branches.covered, branches.valid),
      '@_complexity': 0,
      classes: {
        class: members.map((c) => ({
          '@_name': c.path.slice(c.path.lastIndexOf('/') + 1),
          '@_filename': c.path,
          '@_line-rate': rate(c.covered, c.lines.length),
          '@_branch-rate': rate(c.branches.covered, c.branches.valid),
          '@_complexity': 0,
          methods: '',
          lines: c.lines.length > 0 ? { line: c.lines } : '',
        })),
      },
    };
  });
}

/** A Cobertura rate: a fraction with at most four decimals; 1 when there is nothing to count. */
function rate(covered: number, valid: number): number {
  return valid === 0 ? 1 : Math.round((covered / valid) * 10_000) / 10_000;
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
