import { describe, expect, it } from 'vitest';
import {
  ageText,
  carriedText,
  carries,
  carryforwardJson,
  parseCarryforward,
} from '../../src/executions/carryforward.js';

const carried = (part: string, fromCommit: string, ageSeconds: number) => ({
  part,
  fromCommit,
  fromRun: 'exe_1',
  receivedAt: new Date(0),
  ageSeconds,
});

describe('carryforward', () => {
  it.each([
    [true, { all: true }],
    [['unit', 'integration'], { names: ['integration', 'unit'] }],
    [false, null],
    [[], null],
    [['unit', 'unit'], null],
    [['bad name'], null],
    ['unit', null],
    [1, null],
  ])('reads %j as %j', (value, expected) => {
    expect(parseCarryforward(value)).toEqual(expected);
  });

  it('answers what it was sent as', () => {
    expect(carryforwardJson({ all: true })).toBe(true);
    expect(carryforwardJson({ names: ['e2e'] })).toEqual(['e2e']);
  });

  it('carries every part, the named ones, or none', () => {
    expect(carries({ all: true }, 'e2e')).toBe(true);
    expect(carries({ names: ['e2e'] }, 'e2e')).toBe(true);
    expect(carries({ names: ['e2e'] }, 'unit')).toBe(false);
    expect(carries(null, 'unit')).toBe(false);
  });

  it.each([
    [0, 'less than a minute old'],
    [59, 'less than a minute old'],
    [60, '1 minute old'],
    [3599, '59 minutes old'],
    [3600, '1 hour old'],
    [86_399, '23 hours old'],
    [86_400, '1 day old'],
    [172_800, '2 days old'],
  ])('says an age of %i s as %s', (seconds, text) => {
    expect(ageText(seconds)).toBe(text);
  });

  it('names the carried parts, one clause per source and age', () => {
    const a = 'abc1234'.padEnd(40, 'f');
    const b = 'bcd2345'.padEnd(40, 'f');
    expect(carriedText([carried('integration', a, 172_800)])).toBe(
      'integration carried from abc1234, 2 days old',
    );
    expect(
      carriedText([
        carried('e2e', a, 172_800),
        carried('integration', a, 172_900),
        carried('lint', b, 3600),
      ]),
    ).toBe(
      'e2e, integration carried from abc1234, 2 days old; lint carried from bcd2345, 1 hour old',
    );
    expect(carriedText([])).toBe('');
  });
});
