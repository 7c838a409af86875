import { isCoveragePyJson } from './coverage-py.js';
import { isIstanbulFinal, isIstanbulSummary } from './istanbul.js';
import type { ReportFormat } from './types.js';

/**
 * Recognises a report's format from its content, never its name: XML by its root element
 * (`<report>` JaCoCo; `<coverage>` with a `<project>` child Clover, with a `<file>` child or
 * `version="1"` and no `line-rate` SonarQube's generic coverage, else Cobertura), JSON by its
 * keys (coverage.py's `meta`/`files`/`totals`, Istanbul's `total.lines` or `statementMap`), a
 * Go profile by its `mode:` line, lcov by a first `TN:` or `SF:` line. Undefined when none fits.
 */
export function detectFormat(text: string): ReportFormat | undefined {
  const head = text.replace(/^\uFEFF/, '').trimStart();
  if (head.startsWith('<')) return detectXml(head);
  if (head.startsWith('{')) {
    let doc: unknown;
    try {
      doc = JSON.parse(head);
    } catch {
      return undefined;
    }
    if (isCoveragePyJson(doc)) return 'coverage-py';
    if (isIstanbulSummary(doc) || isIstanbulFinal(doc)) return 'istanbul';
    return undefined;
  }
  if (/^mode: (set|count|atomic)\r?\n/.test(head)) return 'go';
  if (/^(TN|SF):/.test(head)) return 'lcov';
  return undefined;
}

function detectXml(head: string): ReportFormat | undefined {
  // The first element after the declaration, comments and the DOCTYPE.
  const rootTag = /<([A-Za-z_][\w.-]*)[\s>/]/.exec(
    head.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>/g, ''),
  )?.[1];
  if (rootTag === 'report') return 'jacoco';
  if (rootTag !== 'coverage') return undefined;
  const rootStart = head.indexOf('<coverage');
  const rootEnd = head.indexOf('>', rootStart);
  const rootTagText = head.slice(rootStart, rootEnd + 1);
  const afterRoot = head.slice(rootEnd + 1).trimStart();
  if (afterRoot.startsWith('<project')) return 'clover';
  if (/^<file[\s>/]/.test(afterRoot)) return 'sonarqube';
  // SonarQube's root is `<coverage version="1">`, Cobertura's carries rates (`line-rate`).
  if (/\sversion\s*=\s*["']1["']/.test(rootTagText) && !/\sline-rate\s*=/.test(rootTagText)) {
    return 'sonarqube';
  }
  return 'cobertura';
}
