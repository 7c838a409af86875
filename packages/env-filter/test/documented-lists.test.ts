import { readFileSync } from 'node:fs';
import { filterEnv, NEVER_FORWARDED_ENV_NAMES } from '@covgate/env-filter';
import { describe, expect, it } from 'vitest';

// The published page (docs/env-filter.md) is the promise: every name it lists under "What is
// forwarded by default" reaches the tests, every name under "Never forwarded" never does, and
// it lists exactly the exported never-forwarded names, in their order.
const page = readFileSync(new URL('../../../docs/env-filter.md', import.meta.url), 'utf8');

function section(title: string): string {
  const start = page.indexOf(`## ${title}`);
  const end = page.indexOf('\n## ', start + 1);
  if (start === -1) throw new Error(`docs/env-filter.md has no section "${title}"`);
  return page.slice(start, end === -1 ? undefined : end);
}

const backticked = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);

const forwardedTable = section('What is forwarded by default')
  .split('\n')
  .filter((line) => line.startsWith('| ') && !line.startsWith('| Group'));
const documentedNames = forwardedTable.flatMap((row) =>
  backticked(row.split('|')[2] ?? '').filter((name) => !name.endsWith('*')),
);
const documentedNever = backticked(section('Never forwarded').split('\n\n')[1] ?? '').filter(
  (name) => /^[A-Z0-9]+(?:_[A-Z0-9]+)+$/.test(name),
);

describe('filterEnv keeps the documented lists', () => {
  it('reads a plausible list from the page', () => {
    expect(documentedNames.length).toBe(87);
    expect(new Set(documentedNames).size).toBe(87);
    expect(documentedNever).toEqual(NEVER_FORWARDED_ENV_NAMES);
  });

  it('forwards every documented name, each on its own, in the documented spelling', () => {
    for (const name of documentedNames) {
      expect(filterEnv({ [name]: `value of ${name}` }), name).toEqual({
        [name]: `value of ${name}`,
      });
    }
  });

  it('forwards every documented name in lower case too (names match without letter case)', () => {
    for (const name of documentedNames) {
      const lower = name.toLowerCase();
      expect(filterEnv({ [lower]: 'v' }), lower).toEqual({ [lower]: 'v' });
    }
  });

  it('forwards nothing else by default: the documented names one character longer are dropped', () => {
    const env = Object.fromEntries(documentedNames.map((name) => [`${name}X`, 'v']));
    expect(filterEnv(env)).toEqual({});
  });

  it('never forwards a documented secret, even when allowed, in any letter case', () => {
    for (const name of documentedNever) {
      for (const spelling of [name, name.toLowerCase()]) {
        expect(filterEnv({ [spelling]: 'secret', PATH: '/bin' }, { allow: [spelling] })).toEqual({
          PATH: '/bin',
        });
      }
    }
  });
});
