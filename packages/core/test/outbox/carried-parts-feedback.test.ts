import { buildExecution } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import type { PartsState } from '../../src/executions/parts.js';
import { carriedPartsLines, describeWithCarried } from '../../src/outbox/carried-parts-feedback.js';
import { projectStatus, STATUS_DESCRIPTION_MAX } from '../../src/outbox/run-feedback.js';

const carried = (part: string, ageSeconds: number) => ({
  part,
  fromCommit: 'abc1234'.padEnd(40, '0'),
  fromRun: 'exe_01J9ZQ3V8R6W2X4Y5Z7A8B9C0D',
  receivedAt: new Date('2026-11-27T10:00:00Z'),
  ageSeconds,
});

const parts = (names: string[], ageSeconds = 172_800): PartsState => ({
  received: ['unit'],
  carried: names.map((name) => carried(name, ageSeconds)),
  carryforward: null,
  rules: null,
  expected: { names: ['unit', ...names].sort() },
  expectedSource: 'repository',
  closed: true,
  deadline: new Date('2026-11-29T11:00:00Z'),
  revision: 2,
  reason: null,
  verdict: 'pass',
});

describe('carried parts in the feedback', () => {
  it('names a carried part after the verdict in the project status', () => {
    const record = buildExecution({
      coverage: 81.25,
      delta: '+0.50',
      baselineId: 'exe_base',
      parts: parts(['integration']),
    });
    expect(projectStatus(record)).toEqual({
      state: 'success',
      description: '81.25% (+0.50) pass; integration carried from abc1234, 2 days old',
    });
  });

  it('counts the carried parts when their names do not fit the host', () => {
    const names = ['chromium', 'firefox', 'webkit', 'integration', 'e2e-mobile', 'e2e-desktop'].map(
      (name) => `${name}-shard-1-of-2`,
    );
    const record = buildExecution({ coverage: 81.25, parts: parts(names) });
    const { description } = projectStatus(record);
    expect(description).toBe('81.25% (no baseline) pass; 6 parts carried, up to 2 days old');
    const long = describeWithCarried('x'.repeat(200), record, STATUS_DESCRIPTION_MAX);
    expect(long).toHaveLength(STATUS_DESCRIPTION_MAX);
    expect(long.endsWith('…; 6 parts carried, up to 2 days old')).toBe(true);
  });

  it('lists each carried part in the comment, and nothing without one', () => {
    expect(
      carriedPartsLines(buildExecution({ parts: parts(['e2e', 'integration'], 3600) })),
    ).toEqual([
      '**Carried forward** (not run on this commit; counted in the project figure, never on a changed line):',
      '',
      '- `e2e` from `abc1234` (run `exe_01J9ZQ3V8R6W2X4Y5Z7A8B9C0D`), 1 hour old',
      '- `integration` from `abc1234` (run `exe_01J9ZQ3V8R6W2X4Y5Z7A8B9C0D`), 1 hour old',
      '',
    ]);
    expect(carriedPartsLines(buildExecution({ parts: parts([]) }))).toEqual([]);
    expect(carriedPartsLines(buildExecution())).toEqual([]);
  });
});
