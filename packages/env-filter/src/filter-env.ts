import {
  DEFAULT_ALLOWED_ENV_NAMES,
  DEFAULT_ALLOWED_ENV_PREFIXES,
  NEVER_FORWARDED_ENV_NAMES,
} from './env-lists.js';
import { asciiUpperCase, caseFolds, isForwardableName } from './env-name.js';

/** Extra rules for {@link filterEnv}, added to the defaults (never replacing them). */
export interface FilterEnvOptions {
  /** More names to forward, matched case-insensitively. Never-forwarded names stay removed. */
  allow?: readonly string[];
  /** More name prefixes to forward, matched case-insensitively. Must not be empty strings. */
  allowPrefixes?: readonly string[];
  /** More names never to forward, in any case (e.g. a custom webhook provider's secret). */
  deny?: readonly string[];
}

interface CompiledRules {
  names: ReadonlySet<string>;
  prefixes: readonly string[];
  denied: ReadonlySet<string>;
}

/**
 * Returns a new object holding only the allowlisted variables of `env`, for the environment of
 * a subprocess that runs untrusted code.
 *
 * - Names match case-insensitively (Windows names are); each kept key keeps its own spelling.
 * - When several spellings of one name are kept (`PATH` and `Path`), only the one that
 *   sorts first by UTF-16 code units is kept (`PATH`), the rule Node applies on Windows.
 * - {@link NEVER_FORWARDED_ENV_NAMES} and `options.deny` are removed in any case, even when
 *   `allow` or `allowPrefixes` name them.
 * - Non-string and `undefined` values, values containing NUL, names containing `=` or NUL, and
 *   `__proto__` / `constructor` / `prototype` are dropped.
 * - The result has a null prototype and its keys in code-unit order; `env` is never modified.
 *
 * @throws TypeError when `env` is not an object or an option entry is not a non-empty string.
 */
export function filterEnv(
  env: Readonly<Record<string, string | undefined>>,
  options: FilterEnvOptions = {},
): Record<string, string> {
  if (typeof env !== 'object' || env === null) {
    throw new TypeError('filterEnv: env must be an object');
  }
  const rules = compileRules(options);
  const result: Record<string, string> = Object.create(null);
  const kept = new Set<string>();
  for (const name of Object.keys(env).sort()) {
    const value: unknown = env[name];
    const canonical = asciiUpperCase(name);
    if (
      typeof value === 'string' &&
      !value.includes('\0') &&
      !kept.has(canonical) &&
      isForwardableName(name) &&
      isAllowed(canonical, rules) &&
      !isDenied(name, rules)
    ) {
      kept.add(canonical);
      result[name] = value;
    }
  }
  return result;
}

function compileRules(options: FilterEnvOptions): CompiledRules {
  return {
    names: new Set(
      [...DEFAULT_ALLOWED_ENV_NAMES, ...checkedNames(options.allow, 'allow')].map(asciiUpperCase),
    ),
    prefixes: [
      ...DEFAULT_ALLOWED_ENV_PREFIXES,
      ...checkedNames(options.allowPrefixes, 'allowPrefixes'),
    ].map(asciiUpperCase),
    denied: new Set(
      [...NEVER_FORWARDED_ENV_NAMES, ...checkedNames(options.deny, 'deny')].flatMap(caseFolds),
    ),
  };
}

// An empty prefix would forward everything, so it is refused rather than ignored.
function checkedNames(entries: readonly string[] | undefined, option: string): readonly string[] {
  if (entries === undefined) return [];
  if (!Array.isArray(entries)) {
    throw new TypeError(`filterEnv: options.${option} must be an array of strings`);
  }
  for (const entry of entries) {
    if (typeof entry !== 'string' || entry.length === 0) {
      throw new TypeError(`filterEnv: options.${option} entries must be non-empty strings`);
    }
  }
  return entries;
}

function isAllowed(canonical: string, rules: CompiledRules): boolean {
  return rules.names.has(canonical) || rules.prefixes.some((p) => canonical.startsWith(p));
}

function isDenied(name: string, rules: CompiledRules): boolean {
  return caseFolds(name).some((fold) => rules.denied.has(fold));
}
