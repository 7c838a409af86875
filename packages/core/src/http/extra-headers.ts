/**
 * Headers a request adds to whatever it answers (rate-limit headers, a cleared cookie),
 * set by the code that knows them before the route's reply exists.
 */
export class ExtraHeaders {
  /** Lower-case names; a route's own header of the same name wins. */
  readonly values: Record<string, string> = {};
  /** `Set-Cookie` values, sent before the route's own cookies. */
  readonly cookies: string[] = [];

  /** Sets a header, replacing an earlier value. */
  set(name: string, value: string): void {
    this.values[name.toLowerCase()] = value;
  }

  /** Adds a header value: another `Set-Cookie` line, or `, value` for other names. */
  append(name: string, value: string): void {
    const key = name.toLowerCase();
    if (key === 'set-cookie') {
      this.cookies.push(value);
      return;
    }
    const current = this.values[key];
    this.values[key] = current === undefined ? value : `${current}, ${value}`;
  }
}
