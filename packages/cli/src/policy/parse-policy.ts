import { Ajv, type ErrorObject } from 'ajv';
import { isMap, isScalar, LineCounter, type Node, parseDocument } from 'yaml';
import schema from '../../covgate.schema.json' with { type: 'json' };
import { usageError } from '../errors.js';
import { didYouMean } from './did-you-mean.js';
import type { Policy } from './policy.js';

// Compiled once, on the first policy read: the schema editors use is the one enforced.
let validate: ReturnType<Ajv['compile']> | undefined;

function validator(): ReturnType<Ajv['compile']> {
  validate ??= new Ajv({ allErrors: true, verbose: true, strict: false }).compile(schema);
  return validate;
}

/**
 * Parses and validates a policy file's text. An empty file is an empty policy.
 *
 * @param name - the file's name as messages show it (`covgate.yml`, `covgate.yml at 1a2b3c4`)
 * @throws CliError (exit 2) `<name>:<line>:<column>: <what is wrong>` for a YAML syntax error,
 *   an unknown key (with the closest known one), or a value of the wrong type or range
 */
export function parsePolicy(text: string, name: string): Policy {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return `${name}:${line}:${col}`;
  };
  const syntax = doc.errors[0];
  if (syntax) throw usageError(`${at(syntax.pos[0])}: ${firstLine(syntax.message)}`);
  const value: unknown = doc.toJS() ?? {};
  const check = validator();
  if (check(value)) return value as Policy;

  const error = pickError(check.errors ?? []);
  const path = pointerPath(error.instancePath);
  const where = path.length > 0 ? `${path.join('.')}: ` : '';
  if (error.keyword === 'additionalProperties') {
    const key = String(error.params.additionalProperty);
    const known = Object.keys((error.parentSchema?.properties as object | undefined) ?? {});
    const suggestion = didYouMean(key, known);
    const hint = suggestion ? ` (did you mean "${suggestion}"?)` : ` (known: ${known.join(', ')})`;
    return fail(at(keyOffset(doc.getIn(path, true), key)), `${where}unknown key "${key}"${hint}`);
  }
  if (error.keyword === 'propertyNames' || error.params.propertyName !== undefined) {
    const key = String(error.params.propertyName);
    return fail(
      at(keyOffset(doc.getIn(path, true), key)),
      `${where}"${key}" is not a component name: a letter or digit, then letters, digits, ".", "_" or "-"; 64 characters at most`,
    );
  }
  const node = path.length > 0 ? doc.getIn(path, true) : doc.contents;
  return fail(at(offsetOf(node)), `${where}${describe(error, path)}`);
}

function fail(where: string, message: string): never {
  throw usageError(`${where}: ${message}`);
}

/** The error to show: an unknown key first (the likeliest typo), else the first one found. */
function pickError(errors: ErrorObject[]): ErrorObject {
  return (
    errors.find((e) => e.keyword === 'additionalProperties' && e.instancePath !== '/comment') ??
    errors.find((e) => e.params.propertyName !== undefined) ??
    errors.find((e) => e.instancePath === '/comment') ??
    // A oneOf reports each branch's failure: the first names the field, its words say all.
    errors.find((e) => e.instancePath.startsWith('/parts/')) ??
    errors[0]!
  );
}

const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  boolean: 'true or false',
  string: 'a string',
  array: 'a list',
  object: 'a mapping',
};

function describe(error: ErrorObject, path: string[]): string {
  if (path[0] === 'comment' && path.length <= 2 && error.keyword !== 'enum') {
    return 'must be true, false, or a mapping with a list of sections (verdict, patch, files)';
  }
  if (path[0] === 'parts' && path.length >= 2) {
    const names =
      'part names (a letter or digit, then letters, digits, ".", "_" or "-"), each once';
    if (path[1] === 'expect') return `must be a count from 1 to 1000, or a list of ${names}`;
    if (path[1] === 'carryforward') return `must be true, or a list of ${names}`;
  }
  switch (error.keyword) {
    case 'type':
      return `must be ${TYPE_WORDS[String(error.params.type)] ?? String(error.params.type)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
      return `must be ${String(error.params.comparison)} ${String(error.params.limit)}`;
    case 'minItems':
      return 'must list at least one glob';
    case 'minLength':
      return 'must not be empty';
    case 'maxLength':
      return `must be at most ${String(error.params.limit)} characters`;
    case 'enum':
      return `must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'uniqueItems':
      return 'must not repeat a section';
    default:
      return error.message ?? 'is not valid';
  }
}

/** `/components/a~1b/0` -> `['components', 'a/b', '0']`. */
function pointerPath(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function offsetOf(node: unknown): number {
  const range = (node as Node | undefined)?.range;
  return range ? range[0] : 0;
}

/** Where `key` is written in the mapping `node`; the mapping's start when not found. */
function keyOffset(node: unknown, key: string): number {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (isScalar(pair.key) && String(pair.key.value) === key) return offsetOf(pair.key);
    }
  }
  return offsetOf(node);
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}
