import { expect, it } from 'vitest';

/**
 * One test per row of `rows`: `fn(input)` is the row's value (`toBe`). `title` is an
 * `it.each` title, its `%s` / `%j` taking the input, then the value.
 */
export function itReturns<Input, Value>(
  fn: (input: Input) => Value,
  title: string,
  rows: [Input, Value][],
): void {
  it.each(rows)(title, (input, value) => {
    expect(fn(input)).toBe(value);
  });
}
