/**
 * The report-reading and verdict parts of the `covgate` command-line client, for tools that
 * want covgate's line coverage of a report without the command: parsers of lcov, Cobertura,
 * Clover, JaCoCo, Istanbul JSON, Go cover profiles and coverage.py JSON, format detection,
 * merging, and the verdict line. The command itself is the `covgate` bin.
 *
 * @packageDocumentation
 */
export { EXIT } from './errors.js';
// The shapes inside a `Verdict` (`--json`), so that the reference can show them.
export type { ReportEntry, UnknownPath } from './gather-reports.js';
export type { MeasuredPatch } from './patch/measured-patch.js';
export type { PatchCoverage, PatchFile } from './patch/patch-coverage.js';
export type { PatchOutcome } from './patch/patch-rule.js';
export type { DecidingRule } from './patch/patch-verdict.js';
export { type BranchSummary, summariseBranches } from './reports/branches.js';
export { parseClover } from './reports/clover.js';
export { parseCobertura } from './reports/cobertura.js';
export { parseCoveragePy } from './reports/coverage-py.js';
export { detectFormat } from './reports/detect.js';
export { parseGoProfile } from './reports/go.js';
export { parseIstanbul } from './reports/istanbul.js';
export { parseJacoco } from './reports/jacoco.js';
export { parseLcov } from './reports/lcov.js';
export { type CoverageSummary, mergeReports, percentOf } from './reports/merge.js';
export { parseReport, readReport } from './reports/read-report.js';
export { parseSonarqube } from './reports/sonarqube.js';
export {
  type BranchCoverage,
  type FileCoverage,
  MalformedReport,
  type ParsedReport,
  REPORT_FORMATS,
  ReportError,
  type ReportFormat,
} from './reports/types.js';
export {
  baselineOf,
  exitCodeOf,
  type Paint,
  stepSummary,
  type Verdict,
  verdictLine,
  verdictWords,
} from './verdict.js';
