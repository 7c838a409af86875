import {
  DEFAULT_ALLOWED_ENV_NAMES,
  filterEnv,
  NEVER_FORWARDED_ENV_NAMES,
} from '@covgate/env-filter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const NEVER = new Set(NEVER_FORWARDED_ENV_NAMES);

// Names worth hitting often: allowlisted ones and the never-forwarded ones, in random case, and
// a small pool so that one name regularly appears in two spellings.
const nameArbitrary = fc.oneof(
  fc.string(),
  fc.mixedCase(fc.constantFrom('PATH', 'SystemRoot', 'LC_ALL')),
  fc.mixedCase(fc.constantFrom(...DEFAULT_ALLOWED_ENV_NAMES)),
  fc.mixedCase(fc.constantFrom(...NEVER_FORWARDED_ENV_NAMES)),
  fc.constantFrom('__proto__', 'constructor', 'prototype', '=C:', 'LC_ALL'),
);

const valueArbitrary = fc.oneof(
  fc.string(),
  fc.constant(undefined),
  fc.integer(),
  fc.constant(null),
);

const envArbitrary = fc.dictionary(nameArbitrary, valueArbitrary, { maxKeys: 40 });

const optionsArbitrary = fc.record(
  {
    allow: fc.array(nameArbitrary.filter((n) => n.length > 0)),
    allowPrefixes: fc.array(fc.string({ minLength: 1, maxLength: 4 })),
  },
  { requiredKeys: [] },
);

describe('filterEnv: properties over arbitrary environments', () => {
  it('returns only keys of the input, with their string values unchanged', () => {
    fc.assert(
      fc.property(envArbitrary, optionsArbitrary, (env, options) => {
        const input = env as Record<string, string | undefined>;
        const result = filterEnv(input, options);
        for (const key of Reflect.ownKeys(result)) {
          expect(typeof key).toBe('string');
          expect(Object.hasOwn(input, key)).toBe(true);
          expect(result[key as string]).toBe(input[key as string]);
        }
      }),
    );
  });

  it('never lets a never-forwarded name survive, in any case, whatever is allowed', () => {
    fc.assert(
      fc.property(envArbitrary, optionsArbitrary, (env, options) => {
        const allow = [...(options.allow ?? []), ...NEVER_FORWARDED_ENV_NAMES];
        const result = filterEnv(env as Record<string, string | undefined>, { ...options, allow });
        for (const key of Object.keys(result)) {
          expect(NEVER.has(key.toUpperCase())).toBe(false);
        }
      }),
    );
  });

  it('keeps at most one spelling of each name', () => {
    fc.assert(
      fc.property(envArbitrary, optionsArbitrary, (env, options) => {
        const keys = Object.keys(filterEnv(env as Record<string, string | undefined>, options));
        const folded = keys.map((k) => k.replace(/[a-z]/g, (c) => c.toUpperCase()));
        expect(new Set(folded).size).toBe(keys.length);
      }),
    );
  });

  it('keeps exactly the spelling first in code-unit order when one name has several', () => {
    const spellings = fc.uniqueArray(fc.mixedCase(fc.constant('path')), { minLength: 2 });
    fc.assert(
      fc.property(spellings, fc.string(), (names, value) => {
        const env = Object.fromEntries(names.map((name) => [name, value]));
        expect(Object.keys(filterEnv(env))).toEqual([[...names].sort()[0]]);
      }),
    );
  });

  it('never modifies its input', () => {
    fc.assert(
      fc.property(envArbitrary, optionsArbitrary, (env, options) => {
        const before = Object.entries(env);
        filterEnv(env as Record<string, string | undefined>, options);
        expect(Object.entries(env)).toEqual(before);
      }),
    );
  });
});
