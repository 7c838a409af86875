// The API report of each public entry of @covgate/core (packages/core/etc/<entry>.api.md),
// made by API Extractor from the built declarations (run `pnpm run build` first).
// `node packages/core/scripts/api-report.mjs` fails when a report differs from the built
// surface; `--update` rewrites the reports.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const projectFolder = fileURLToPath(new URL('..', import.meta.url));

/** The public entries; `internal` has no report on purpose (no semver promise). */
export const PUBLIC_ENTRIES = [
  'index',
  'github',
  'gitea',
  'gitlab',
  'percent',
  'verdict',
  'line-data',
  'storage-kit',
];

/**
 * Runs API Extractor on the built `.d.ts` of every public entry.
 *
 * @param update true rewrites `etc/<entry>.api.md`; false only compares.
 * @returns the entries whose report differs from their build, and every message.
 */
export function checkApiReports(update) {
  const tempFolder = mkdtempSync(join(tmpdir(), 'covgate-api-report-'));
  if (update) mkdirSync(join(projectFolder, 'etc'), { recursive: true });
  const changed = [];
  const messages = [];
  try {
    for (const entry of PUBLIC_ENTRIES) {
      const config = ExtractorConfig.prepare({
        configObjectFullPath: join(projectFolder, 'api-extractor.json'),
        packageJsonFullPath: join(projectFolder, 'package.json'),
        configObject: {
          projectFolder,
          mainEntryPointFilePath: join(projectFolder, 'dist', `${entry}.d.ts`),
          compiler: {
            overrideTsconfig: {
              compilerOptions: {
                target: 'ES2022',
                lib: ['ES2023', 'DOM', 'DOM.Iterable'],
                module: 'NodeNext',
                moduleResolution: 'NodeNext',
                types: ['node'],
                strict: true,
                skipLibCheck: true,
              },
              files: [join(projectFolder, 'dist', `${entry}.d.ts`)],
            },
          },
          apiReport: {
            enabled: true,
            reportFileName: entry,
            reportFolder: join(projectFolder, 'etc'),
            reportTempFolder: tempFolder,
          },
          docModel: { enabled: false },
          dtsRollup: { enabled: false },
          tsdocMetadata: { enabled: false },
          messages: {
            // Kept in the report, so that a type an option names but no entry exports is
            // seen in review. Release tags are not used; undocumented members are reported
            // by the line of a hashed chunk, which would change with unrelated code.
            extractorMessageReporting: {
              default: { logLevel: 'none', addToApiReportFile: true },
              'ae-missing-release-tag': { logLevel: 'none', addToApiReportFile: false },
              'ae-undocumented': { logLevel: 'none', addToApiReportFile: false },
            },
            tsdocMessageReporting: { default: { logLevel: 'none' } },
            compilerMessageReporting: { default: { logLevel: 'warning' } },
          },
        },
      });
      const result = Extractor.invoke(config, {
        localBuild: update,
        messageCallback: (message) => {
          // The report's own status: said below, with the difference.
          const reportStatus =
            String(message.messageId).startsWith('console-api-report-') &&
            message.messageId !== 'console-api-report-folder-missing';
          if (!reportStatus && (message.logLevel === 'warning' || message.logLevel === 'error')) {
            messages.push(`${entry}: ${message.text}`);
          }
          message.handled = true;
        },
      });
      if (result.apiReportChanged) {
        changed.push(entry);
        if (!update) messages.push(`${entry}: ${reportDifference(entry, tempFolder)}`);
      }
    }
  } finally {
    rmSync(tempFolder, { recursive: true, force: true });
  }
  return { changed, messages };
}

/** The lines only in the committed report (-) and only in the built one (+). */
function reportDifference(entry, tempFolder) {
  const read = (path) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n') : []);
  const committed = read(join(projectFolder, 'etc', `${entry}.api.md`));
  const built = read(join(tempFolder, `${entry}.api.md`));
  const committedSet = new Set(committed);
  const builtSet = new Set(built);
  const lines = [
    ...committed.filter((line) => !builtSet.has(line)).map((line) => `- ${line}`),
    ...built.filter((line) => !committedSet.has(line)).map((line) => `+ ${line}`),
  ];
  return `etc/${entry}.api.md differs from the build:\n${lines.join('\n')}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const update = process.argv.includes('--update');
  const { changed, messages } = checkApiReports(update);
  for (const message of messages) console.error(message);
  if (changed.length > 0 && !update) {
    console.error(
      `The public API of @covgate/core changed (${changed.join(', ')}): review the difference, then run \`pnpm run api:report\` and commit packages/core/etc/.`,
    );
    process.exitCode = 1;
  } else if (changed.length > 0) {
    console.error(`Updated packages/core/etc/: ${changed.join(', ')}`);
  }
}
