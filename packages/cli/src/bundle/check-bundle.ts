import { Ajv, type ErrorObject } from 'ajv';
import { type Bundle, MAX_LINE } from './bundle.js';
import { BUNDLE_SCHEMA } from './bundle-schema.js';

let validate: ReturnType<Ajv['compile']> | undefined;

/**
 * What is wrong with a parsed bundle, or null when it is one: first the JSON Schema (closed
 * objects, bounded numbers and lists), then what a schema cannot say: paths that stay inside
 * the repository and are listed once, lines ascending and unique, covered lines among the
 * coverable ones, counts within their totals, ranges within the line bound.
 */
export function bundleProblem(value: unknown): string | null {
  validate ??= new Ajv({ allErrors: false, strict: false }).compile(BUNDLE_SCHEMA);
  if (!validate(value)) return schemaProblem((validate.errors ?? [])[0]);
  const bundle = value as Bundle;
  const seen = new Set<string>();
  for (const [index, file] of bundle.files.entries()) {
    const where = `files[${index}]`;
    const bad = pathProblem(file.path);
    if (bad) return `${where}.path ${JSON.stringify(file.path)}: ${bad}`;
    if (seen.has(file.path)) return `${where}.path ${JSON.stringify(file.path)}: listed twice`;
    seen.add(file.path);
    if (file.covered > file.coverable) return `${where}: covered is more than coverable`;
    if (file.branches && file.branches.covered > file.branches.coverable)
      return `${where}.branches: covered is more than coverable`;
    if (file.lines) {
      const lines = linesProblem(file.lines);
      if (lines) return `${where}.lines: ${lines}`;
    }
  }
  if (bundle.patch) {
    const changed = new Set<string>();
    for (const [index, entry] of bundle.patch.changed.entries()) {
      const where = `patch.changed[${index}]`;
      const bad = pathProblem(entry.path);
      if (bad) return `${where}.path ${JSON.stringify(entry.path)}: ${bad}`;
      if (changed.has(entry.path))
        return `${where}.path ${JSON.stringify(entry.path)}: listed twice`;
      changed.add(entry.path);
      let next = 1;
      for (const [start, count] of entry.ranges) {
        if (start < next) return `${where}.ranges: not ascending or overlapping`;
        if (start + count - 1 > MAX_LINE) return `${where}.ranges: beyond line ${MAX_LINE}`;
        next = start + count;
      }
    }
  }
  return null;
}

/**
 * Why a path is not a repository-relative one, or null: absolute, a drive or a backslash, an
 * empty, `.` or `..` segment (`a//b`, `./a`, `../a`, `a/..`).
 */
export function pathProblem(path: string): string | null {
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'an absolute path';
  if (path.includes('\\')) return 'a backslash (paths are /-separated)';
  const segments = path.split('/');
  if (segments.some((segment) => segment === '..')) return 'a ".." segment';
  if (segments.some((segment) => segment === '' || segment === '.'))
    return 'an empty or "." segment';
  return null;
}

function linesProblem(lines: { coverable: number[]; covered: number[] }): string | null {
  if (!ascending(lines.coverable)) return 'coverable lines not ascending and unique';
  if (!ascending(lines.covered)) return 'covered lines not ascending and unique';
  const coverable = new Set(lines.coverable);
  if (lines.covered.some((line) => !coverable.has(line)))
    return 'a covered line that is not coverable';
  return null;
}

function ascending(list: number[]): boolean {
  for (let i = 1; i < list.length; i++)
    if ((list[i] as number) <= (list[i - 1] as number)) return false;
  return true;
}

function schemaProblem(error: ErrorObject | undefined): string {
  if (!error) return 'not a bundle';
  const where =
    error.instancePath === '' ? 'the bundle' : error.instancePath.slice(1).replace(/\//g, '.');
  if (error.keyword === 'additionalProperties')
    return `${where}: unknown key ${JSON.stringify(error.params.additionalProperty)}`;
  if (error.keyword === 'required')
    return `${where}: missing key ${JSON.stringify(error.params.missingProperty)}`;
  if (error.keyword === 'const' && error.instancePath === '/covgate_bundle')
    return 'covgate_bundle: not a bundle version this covgate reads (it reads version 1)';
  return `${where}: ${error.message ?? 'invalid'}`;
}
