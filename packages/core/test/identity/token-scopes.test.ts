import { describe, expect, it } from 'vitest';
import { hasScope, isScope, parseScopes, SCOPES } from '../../src/identity/token-scopes.js';

describe('SCOPES', () => {
  it('defines execute as the only scope', () => {
    expect(SCOPES).toEqual(['execute']);
  });
});

describe('isScope', () => {
  it('accepts execute', () => {
    expect(isScope('execute')).toBe(true);
  });

  it.each([
    ['another case', 'Execute'],
    ['surrounding whitespace', ' execute'],
    ['an unknown scope', 'admin'],
    ['an empty string', ''],
    ['a lookalike with a Cyrillic e', '\u0435xecute'],
    ['a prototype property name', 'toString'],
    ['a non-string', 1],
    ['an array holding execute', ['execute']],
  ])('rejects %s', (_label, value) => {
    expect(isScope(value)).toBe(false);
  });
});

describe('parseScopes', () => {
  it('accepts a list of known scopes', () => {
    expect(parseScopes(['execute'])).toEqual(['execute']);
  });

  it('removes duplicates', () => {
    expect(parseScopes(['execute', 'execute', 'execute'])).toEqual(['execute']);
  });

  it('returns a new array, not the input', () => {
    const input = ['execute'];
    expect(parseScopes(input)).not.toBe(input);
  });

  it.each([
    ['an empty array', []],
    ['an unknown scope among known ones', ['execute', 'admin']],
    ['a scope in another case', ['EXECUTE']],
    ['a non-string element', ['execute', 1]],
    ['a null element', [null]],
    // biome-ignore lint/suspicious/noSparseArray: a hole is the hostile input under test.
    ['a sparse array with a hole', [, 'execute']],
    ['a comma-separated string', 'execute,execute'],
    ['a bare scope string', 'execute'],
    ['an array-like object', { 0: 'execute', length: 1 }],
    ['a set', new Set(['execute'])],
    ['null', null],
    ['undefined', undefined],
  ])('rejects %s', (_label, value) => {
    expect(parseScopes(value)).toBeNull();
  });
});

describe('hasScope', () => {
  it('finds a scope the token carries', () => {
    expect(hasScope(['execute'], 'execute')).toBe(true);
  });

  it('does not find it in an empty list or under another case', () => {
    expect(hasScope([], 'execute')).toBe(false);
    expect(hasScope(['Execute', 'execute '], 'execute')).toBe(false);
  });
});
