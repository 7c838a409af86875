import { describe, expect, it } from 'vitest';
import { migrationLine, migrationStatusOf } from '../../src/storage-kit.js';

const JOURNAL = [
  { tag: '0000_init', when: 100 },
  { tag: '0001_next', when: 200 },
  { tag: '0003_last', when: 300 },
];

describe('migrationStatusOf', () => {
  it('a database without the schema: every shipped migration pending', () => {
    expect(migrationStatusOf(JOURNAL, null)).toEqual({
      current: null,
      latest: '0003_last',
      pending: ['0000_init', '0001_next', '0003_last'],
      ahead: false,
    });
  });

  it('names the last applied migration and those stamped later, as drizzle applies them', () => {
    expect(migrationStatusOf(JOURNAL, 200)).toEqual({
      current: '0001_next',
      latest: '0003_last',
      pending: ['0003_last'],
      ahead: false,
    });
    expect(migrationStatusOf(JOURNAL, 300).pending).toEqual([]);
  });

  it('says when the database holds a newer release migration', () => {
    expect(migrationStatusOf(JOURNAL, 400)).toMatchObject({ pending: [], ahead: true });
  });
});

describe('migrationLine', () => {
  it('from, to and the count; up to date when nothing was applied', () => {
    expect(migrationLine({ from: null, to: '0003_last', applied: ['a', 'b', 'c'] })).toBe(
      'database schema migrated from none to 0003_last (3 migrations)',
    );
    expect(migrationLine({ from: '0001_next', to: '0003_last', applied: ['0003_last'] })).toBe(
      'database schema migrated from 0001_next to 0003_last (1 migration)',
    );
    expect(migrationLine({ from: '0003_last', to: '0003_last', applied: [] })).toBe(
      'database schema up to date at 0003_last',
    );
  });
});
