import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sniffFile } from './sniff.js';
import type { ReportFormat } from './types.js';

/**
 * The report names searched for in each folder, in groups: one tool run writes the names of a
 * group side by side (c8's `coverage/` holds lcov, JSON, Cobertura and Clover of the same
 * run), so only the first of a group found in a folder is taken. Each name is taken only when
 * its content is one of the formats listed (a `coverage.json` must be coverage.py's, a
 * `coverage.txt` a Go profile).
 */
export const REPORT_NAME_GROUPS: readonly (readonly [string, readonly ReportFormat[]])[][] = [
  [
    ['coverage/lcov.info', ['lcov']],
    ['coverage/coverage-final.json', ['istanbul']],
    ['coverage/cobertura-coverage.xml', ['cobertura']],
    ['coverage/clover.xml', ['clover']],
    ['coverage/coverage-summary.json', ['istanbul']],
  ],
  [
    ['coverage.xml', ['cobertura', 'clover', 'sonarqube']],
    ['coverage.json', ['coverage-py']],
    ['coverage.lcov', ['lcov']],
  ],
  [
    ['coverage.out', ['go']],
    ['coverage.txt', ['go']],
    ['cover.out', ['go']],
  ],
  [['lcov.info', ['lcov']]],
  [['clover.xml', ['clover']]],
  [['coverage.cobertura.xml', ['cobertura']]],
  [['sonarqube.xml', ['sonarqube']]],
  [['target/site/jacoco/jacoco.xml', ['jacoco']]],
  [['build/reports/jacoco/test/jacocoTestReport.xml', ['jacoco']]],
];

/**
 * Folders never searched: dependencies, version control, virtual environments, test
 * fixtures, and tools' output folders (reports in these are found by the names above from
 * the folder that holds them, e.g. `coverage/lcov.info`, `target/site/jacoco/jacoco.xml`).
 * Folders whose name starts with `.` are skipped too.
 */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set([
  'node_modules',
  'bower_components',
  'vendor',
  'third_party',
  'venv',
  'site-packages',
  '__pycache__',
  'fixtures',
  '__fixtures__',
  'testdata',
  'coverage',
  'build',
  'target',
  'dist',
  'out',
]);

/** Limits of the search: folder depth below the start, folders read, time. */
export interface DiscoveryLimits {
  depth: number;
  folders: number;
  ms: number;
}

/** The default limits: 4 folders deep, 10 000 folders, 5 seconds. */
export const DISCOVERY_LIMITS: DiscoveryLimits = { depth: 4, folders: 10_000, ms: 5_000 };

/** What the search found. */
export interface Discovery {
  /** Reports taken, paths relative to the start folder with `/`, nearest folders first. */
  found: { path: string; format: ReportFormat }[];
  /** Files of a searched name whose content is not of the `expected` formats. */
  skipped: { path: string; format: ReportFormat | undefined; expected: readonly ReportFormat[] }[];
  /** Folders searched. */
  folders: number;
  /** Which limit ended the search early, if any. */
  stopped?: 'folders' | 'time';
}

/**
 * Searches `start` and the folders below it, breadth first and in name order, for the report
 * names of {@link REPORT_NAME_GROUPS}, skipping {@link SKIPPED_FOLDERS}, hidden folders and
 * symbolic links, within `limits`.
 */
export async function discoverReports(
  start: string,
  limits: DiscoveryLimits = DISCOVERY_LIMITS,
  now: () => number = Date.now,
): Promise<Discovery> {
  const result: Discovery = { found: [], skipped: [], folders: 0 };
  const deadline = now() + limits.ms;
  let level: string[] = [''];
  for (let depth = 0; level.length > 0 && depth <= limits.depth; depth++) {
    const next: string[] = [];
    for (const folder of level) {
      if (result.folders >= limits.folders) result.stopped = 'folders';
      else if (now() > deadline) result.stopped = 'time';
      if (result.stopped) return result;
      result.folders++;
      const entries = await entriesOf(join(start, folder));
      await searchFolder(start, folder, new Set(entries.map((e) => e.name)), result);
      if (depth === limits.depth) continue;
      for (const e of entries) {
        if (e.isDirectory() && !e.name.startsWith('.') && !SKIPPED_FOLDERS.has(e.name))
          next.push(folder === '' ? e.name : `${folder}/${e.name}`);
      }
    }
    level = next;
  }
  return result;
}

async function searchFolder(
  start: string,
  folder: string,
  names: ReadonlySet<string>,
  result: Discovery,
): Promise<void> {
  for (const group of REPORT_NAME_GROUPS) {
    for (const [name, formats] of group) {
      // Only names whose first part is in the folder are opened.
      if (!names.has(name.split('/')[0] as string)) continue;
      const path = folder === '' ? name : `${folder}/${name}`;
      const sniffed = await sniffFile(join(start, path));
      if (sniffed === undefined) continue;
      if (sniffed.format !== undefined && formats.includes(sniffed.format)) {
        result.found.push({ path, format: sniffed.format });
        break;
      }
      result.skipped.push({ path, format: sniffed.format, expected: formats });
    }
  }
}

async function entriesOf(folder: string): Promise<Dirent[]> {
  try {
    return (await readdir(folder, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  } catch {
    // Unreadable: nothing in or below it is searched.
    return [];
  }
}
