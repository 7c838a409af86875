/**
 * Checks a required text option of a code host factory.
 *
 * @throws TypeError `<factory>: <name> is required` (never the value).
 */
export function requireText(factory: string, value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`${factory}: ${name} is required`);
  }
  return value;
}

/**
 * Checks a URL option of a code host factory: an absolute http(s) URL.
 *
 * @throws TypeError naming the factory and the option (never the value).
 */
export function requireHttpUrl(factory: string, value: unknown, name: string): string {
  const text = requireText(factory, value, name);
  let protocol: string;
  try {
    protocol = new URL(text).protocol;
  } catch {
    protocol = '';
  }
  if (protocol !== 'https:' && protocol !== 'http:') {
    throw new TypeError(`${factory}: ${name} must be an absolute http(s) URL`);
  }
  return text;
}
