/** Every scope an API token can carry. `execute` allows recording and listing executions. */
export const SCOPES = ['execute'] as const;

/** A scope an API token can carry (not to be confused with a request's `RequestScope`). */
export type TokenScope = (typeof SCOPES)[number];

/**
 * A scope an API token can carry.
 *
 * @deprecated Use {@link TokenScope}: `Scope` also read as a request's scope.
 */
export type Scope = TokenScope;

/** Whether `value` is exactly one of {@link SCOPES} (case-sensitive, no trimming). */
export function isScope(value: unknown): value is TokenScope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/**
 * Parses a requested list of scopes: a non-empty array whose every element is a known scope.
 * Duplicates are removed, first occurrence order kept.
 *
 * @returns the scopes, or `null` for anything else (empty array, unknown or non-string
 *   element, hole in a sparse array, non-array).
 */
export function parseScopes(value: unknown): TokenScope[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const scopes = new Set<TokenScope>();
  // Index loop rather than `every`/`for..of` semantics on holes: a hole reads as `undefined`.
  for (let index = 0; index < value.length; index += 1) {
    const element: unknown = value[index];
    if (!isScope(element)) return null;
    scopes.add(element);
  }
  return [...scopes];
}

/** Whether a token's scopes include `scope` (exact match). */
export function hasScope(scopes: readonly string[], scope: TokenScope): boolean {
  return scopes.includes(scope);
}
