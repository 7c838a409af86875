/**
 * Upper-cases ASCII letters only. Allowlist matching uses this fold, so a name with look-alike
 * Unicode letters (`ſHELL`) is never taken for an allowlisted one (`SHELL`).
 */
export function asciiUpperCase(name: string): string {
  return name.replace(/[a-z]+/g, (letters) => letters.toUpperCase());
}

/**
 * Every upper-case spelling a name can fold to. Denylist matching checks all of them, so
 * Unicode case mappings that land on ASCII (`ſ` -> `S`, Kelvin sign -> `k`) cannot smuggle a
 * never-forwarded name past the filter.
 */
export function caseFolds(name: string): readonly string[] {
  return [asciiUpperCase(name), name.toUpperCase(), name.toLowerCase().toUpperCase()];
}

const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__PROTO__', 'CONSTRUCTOR', 'PROTOTYPE']);

/**
 * Whether a name can be handed to a child process at all: not empty, no `=` (it separates
 * name from value; Windows' hidden `=C:` entries start with one), no NUL, and not a key that
 * means something to JavaScript objects.
 */
export function isForwardableName(name: string): boolean {
  return (
    name.length > 0 &&
    !name.includes('=') &&
    !name.includes('\0') &&
    !PROTOTYPE_KEYS.has(asciiUpperCase(name))
  );
}
