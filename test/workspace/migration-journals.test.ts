import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// drizzle's migrators apply a migration only when its journal `when` is later than the newest
// one a database has applied: a migration whose `when` is earlier than the one before it is
// skipped on every database already past that one (found with 0015/0016 after 0014's hand-set
// time). Each store's journal must therefore grow in `when` as in `idx`.

const journals = [
  'packages/sqlite/drizzle/meta/_journal.json',
  'packages/mysql/drizzle/meta/_journal.json',
];

describe.each(journals)('%s', (path) => {
  it('lists migrations in order, each later than the one before', () => {
    const { entries } = JSON.parse(
      readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'),
    ) as {
      entries: { idx: number; when: number; tag: string }[];
    };
    const late = entries.filter((entry, i) => i > 0 && entry.when <= entries[i - 1]!.when);
    expect(late.map((entry) => entry.tag)).toEqual([]);
  });
});
