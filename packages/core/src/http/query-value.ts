/** The single value of a query parameter; null when absent or repeated. */
export function onlyValue(params: URLSearchParams, name: string): string | null {
  const values = params.getAll(name);
  return values.length === 1 ? (values[0] as string) : null;
}
